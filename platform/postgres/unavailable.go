package postgres

import (
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"

	"github.com/lib/pq"
)

// IsUnavailable reports whether err means the database could not be
// reached or is restarting (no socket, refused, connection cut, shutting
// down, starting up), as opposed to a query that failed. Such a failure
// passes when PostgreSQL is back, so a request that meets it is answered
// 503, not 500, and the pool's next connection recovers by itself.
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	var pqErr *pq.Error
	if errors.As(err, &pqErr) {
		code := string(pqErr.Code)
		// 08: connection exception; 57P01-03: admin or crash shutdown, cannot
		// connect now (starting up or shutting down); 53300: no connection
		// slot left (max_connections, or a role's or database's limit).
		return strings.HasPrefix(code, "08") || code == "57P01" || code == "57P02" || code == "57P03" || code == tooManyConnections
	}
	var netErr *net.OpError
	return errors.As(err, &netErr) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

const tooManyConnections = "53300"

// IsTooManyConnections reports whether PostgreSQL refused a new connection
// because every slot is taken: the instances' pools together want more than
// max_connections (or a role's or database's connection limit) allows.
func IsTooManyConnections(err error) bool {
	var pqErr *pq.Error
	return errors.As(err, &pqErr) && string(pqErr.Code) == tooManyConnections
}
