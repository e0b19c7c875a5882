package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// SessionLifetime is how long a dashboard sign-in lasts: a working day, then
// the user signs in again.
const SessionLifetime = 12 * time.Hour

// Session is a signed-in dashboard user.
type Session struct {
	User      UserInfo
	CSRFToken string // every form of the session carries it back
	ExpiresAt time.Time

	plan      Plan
	rateLimit *int
}

// Principal is who the session's user acts as in the API: the account, with
// every permission and the account's rate limit, so the dashboard sees and
// may do what the account's own keys can.
func (s Session) Principal() Principal {
	return Principal{AccountID: s.User.AccountID, KeyID: "dashboard:" + s.User.ID, Plan: s.plan,
		RateLimit: s.plan.RequestsPerMinute(s.rateLimit), Permissions: AllPermissions}
}

// ErrNoSession is a session token that is unknown, ended or expired.
var ErrNoSession = errors.New("no such session; sign in again")

// StartSession signs user in and returns the token for the session cookie.
// Only the token's hash is stored.
func (s *Store) StartSession(ctx context.Context, user UserInfo) (token string, session Session, err error) {
	token, csrf := rand.Text(), rand.Text()
	now := s.clock.Now()
	session = Session{User: user, CSRFToken: csrf, ExpiresAt: now.Add(SessionLifetime)}
	_, err = s.db.ExecContext(ctx, `INSERT INTO platform.sessions (token_hash, user_id, csrf_token, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5)`, sessionHash(token), user.ID, csrf, now, session.ExpiresAt)
	if err != nil {
		return "", Session{}, fmt.Errorf("starting session: %w", err)
	}
	return token, session, nil
}

// SessionOf returns the live session of token, or ErrNoSession.
func (s *Store) SessionOf(ctx context.Context, token string) (Session, error) {
	if token == "" || len(token) > 64 {
		return Session{}, ErrNoSession
	}
	var row struct {
		UserInfo
		CSRF      string    `db:"csrf_token"`
		ExpiresAt time.Time `db:"expires_at"`
		Plan      Plan      `db:"plan"`
		RateLimit *int      `db:"rate_limit"`
	}
	err := s.db.GetContext(ctx, &row, `SELECT u.id, u.account_id, a.name AS account_name, u.email, u.created_at, s.csrf_token, s.expires_at, a.plan, a.rate_limit
		FROM platform.sessions s JOIN platform.users u ON u.id = s.user_id JOIN platform.accounts a ON a.id = u.account_id
		WHERE s.token_hash = $1 AND s.expires_at > $2`, sessionHash(token), s.clock.Now())
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, ErrNoSession
	}
	if err != nil {
		return Session{}, fmt.Errorf("reading session: %w", err)
	}
	return Session{User: row.UserInfo, CSRFToken: row.CSRF, ExpiresAt: row.ExpiresAt, plan: row.Plan, rateLimit: row.RateLimit}, nil
}

// EndSession signs the session's user out; an unknown token is no error.
func (s *Store) EndSession(ctx context.Context, token string) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM platform.sessions WHERE token_hash = $1`, sessionHash(token))
	return err
}

// PurgeSessions deletes expired sessions.
func (s *Store) PurgeSessions(ctx context.Context) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM platform.sessions WHERE expires_at <= $1`, s.clock.Now())
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// CSRFMatches reports whether a form's token is the session's, in constant time.
func (s Session) CSRFMatches(token string) bool {
	return token != "" && subtle.ConstantTimeCompare([]byte(token), []byte(s.CSRFToken)) == 1
}

func sessionHash(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}
