package postgres_test

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/lib/pq"

	"shipd/platform/postgres"
)

func TestIsUnavailable(t *testing.T) {
	noSocket := &net.OpError{Op: "dial", Net: "unix", Err: os.NewSyscallError("connect", syscall.ENOENT)}
	for _, c := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("counting request: %w", noSocket), true},
		{&pq.Error{Code: "57P01", Message: "terminating connection due to administrator command"}, true},
		{&pq.Error{Code: "57P03", Message: "the database system is shutting down"}, true},
		{&pq.Error{Code: "08006"}, true},
		{fmt.Errorf("begin: %w", &pq.Error{Code: "53300", Message: "sorry, too many clients already"}), true},
		{fmt.Errorf("begin: %w", driver.ErrBadConn), true},
		{io.ErrUnexpectedEOF, true},
		{&pq.Error{Code: "23505", Message: "duplicate key"}, false},
		{&pq.Error{Code: "42P01", Message: "relation does not exist"}, false},
		{errors.New("something else"), false},
		{nil, false},
	} {
		if got := postgres.IsUnavailable(c.err); got != c.want {
			t.Errorf("IsUnavailable(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
