package auth

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"shipd/platform/ids"
	"shipd/platform/postgres"
)

// NewUserRequest asks for a dashboard user of an account (made when new).
type NewUserRequest struct {
	AccountName string
	Email       string
	Password    string
}

// UserInfo describes a dashboard user; never its password or hash.
type UserInfo struct {
	ID          string    `db:"id"`
	AccountID   string    `db:"account_id"`
	AccountName string    `db:"account_name"`
	Email       string    `db:"email"`
	CreatedAt   time.Time `db:"created_at"`
}

// UserProblem is a NewUserRequest field that cannot be used, and why.
type UserProblem struct {
	Field   string
	Message string
}

func (p *UserProblem) Error() string { return p.Field + ": " + p.Message }

// ErrWrongCredentials is a sign-in whose address or password is wrong; it
// does not say which, so sign-in cannot be used to find addresses.
var ErrWrongCredentials = errors.New("the e-mail address or the password is wrong")

// CreateUser stores a user with the argon2id hash of its password.
func (s *Store) CreateUser(ctx context.Context, req NewUserRequest) (UserInfo, error) {
	req.AccountName = strings.TrimSpace(req.AccountName)
	email, problem := checkNewUser(req)
	if problem != nil {
		return UserInfo{}, problem
	}
	hash, err := HashPassword(req.Password)
	if err != nil {
		return UserInfo{}, err
	}
	now := s.clock.Now()
	info := UserInfo{ID: ids.NewAt(ids.User, now), AccountName: req.AccountName, Email: email, CreatedAt: now}
	err = postgres.InTx(ctx, s.db, func(tx *sqlx.Tx) error {
		acc, err := s.upsertAccount(ctx, tx, NewKeyRequest{AccountName: req.AccountName}, now)
		if err != nil {
			return err
		}
		info.AccountID = acc
		_, err = tx.ExecContext(ctx, `INSERT INTO platform.users (id, account_id, email, password_hash, created_at)
			VALUES ($1, $2, $3, $4, $5)`, info.ID, acc, email, hash, now)
		return err
	})
	var pqErr *pq.Error
	if errors.As(err, &pqErr) && pqErr.Code == "23505" {
		return UserInfo{}, &UserProblem{Field: "email", Message: "a user with this address exists already"}
	}
	if err != nil {
		return UserInfo{}, fmt.Errorf("creating user: %w", err)
	}
	return info, nil
}

// checkNewUser returns the address as it is stored, or the first problem.
func checkNewUser(req NewUserRequest) (string, *UserProblem) {
	if req.AccountName == "" {
		return "", &UserProblem{Field: "account", Message: "is required"}
	}
	addr, err := mail.ParseAddress(strings.TrimSpace(req.Email))
	if err != nil || addr.Name != "" || len(addr.Address) > 254 {
		return "", &UserProblem{Field: "email", Message: "must be a plain e-mail address such as jana@example.com"}
	}
	switch n := utf8.RuneCountInString(req.Password); {
	case !utf8.ValidString(req.Password):
		return "", &UserProblem{Field: "password", Message: "must be valid UTF-8 text"}
	case n < MinPasswordLength:
		return "", &UserProblem{Field: "password", Message: fmt.Sprintf("must be at least %d characters", MinPasswordLength)}
	case n > MaxPasswordLength:
		return "", &UserProblem{Field: "password", Message: fmt.Sprintf("must be at most %d characters", MaxPasswordLength)}
	}
	return addr.Address, nil
}

// dummyHash is checked when no user has the address, so a sign-in takes as
// long whether or not the address exists. HashPassword fails only when
// crypto/rand does, which it never does (it crashes the program instead).
var dummyHash, _ = HashPassword("no user has this password, it only costs the same time")

// CheckPassword returns the user with that address and password, or
// ErrWrongCredentials.
func (s *Store) CheckPassword(ctx context.Context, email, password string) (UserInfo, error) {
	var row struct {
		UserInfo
		Hash string `db:"password_hash"`
	}
	err := s.db.GetContext(ctx, &row, `SELECT u.id, u.account_id, a.name AS account_name, u.email, u.created_at, u.password_hash
		FROM platform.users u JOIN platform.accounts a ON a.id = u.account_id WHERE lower(u.email) = lower($1)`,
		strings.TrimSpace(email))
	if errors.Is(err, sql.ErrNoRows) {
		_, _ = PasswordMatches(dummyHash, password)
		return UserInfo{}, ErrWrongCredentials
	}
	if err != nil {
		return UserInfo{}, fmt.Errorf("reading user: %w", err)
	}
	if len(password) > 4*MaxPasswordLength {
		return UserInfo{}, ErrWrongCredentials // never hash an unbounded input
	}
	ok, err := PasswordMatches(row.Hash, password)
	if err != nil {
		return UserInfo{}, fmt.Errorf("user %s: %w", row.ID, err)
	}
	if !ok {
		return UserInfo{}, ErrWrongCredentials
	}
	return row.UserInfo, nil
}
