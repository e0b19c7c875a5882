// Package idempotency makes a POST safe to repeat: the first answer to an
// Idempotency-Key is kept 24 hours and replayed for the same request.
package idempotency

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"errors"
	"net/http"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd/platform/clock"
)

// TTL is how long a key's answer is kept.
const TTL = 24 * time.Hour

// claimTimeout is how long a key may stay "running" before another request
// may take it over (its first holder crashed or lost its connection).
const claimTimeout = 60 * time.Second

// Store keeps keys and answers in platform.idempotency_keys.
type Store struct {
	db    *sqlx.DB
	clock clock.Clock
}

// NewStore returns a Store on db.
func NewStore(db *sqlx.DB, clk clock.Clock) *Store { return &Store{db: db, clock: clk} }

// Outcome is what claiming a key found.
type Outcome int

// The outcomes of Claim.
const (
	Claimed Outcome = iota + 1 // the caller runs the request and stores its answer
	Replay                     // the answer of the first request is returned again
	Reused                     // the key was used for another request
	Running                    // the first request with this key has not finished
)

// Stored is a kept answer.
type Stored struct {
	Status int
	Header http.Header
	Body   []byte
}

// Fingerprint identifies a request: method, path and body.
func Fingerprint(method, path string, body []byte) []byte {
	h := sha256.New()
	h.Write([]byte(method + " " + path + "\n"))
	h.Write(body)
	return h.Sum(nil)
}

// Claim takes key for the request with fingerprint fp, or reports what
// stands in the way. A Claimed outcome comes with the claim's token, which
// Complete and Release need: a slow holder whose claim was taken over can
// no longer touch the row.
func (s *Store) Claim(ctx context.Context, accountID, key string, fp []byte) (Outcome, *Stored, string, error) {
	// A request racing another's first use of the key finds neither its own
	// insert nor, in the statement's snapshot, the winner's row: ask again,
	// and the next statement sees the committed row.
	for range 3 {
		outcome, stored, token, err := s.claim(ctx, accountID, key, fp)
		if !errors.Is(err, sql.ErrNoRows) {
			return outcome, stored, token, err
		}
	}
	return 0, nil, "", errors.New("idempotency: key claim kept racing")
}

func (s *Store) claim(ctx context.Context, accountID, key string, fp []byte) (Outcome, *Stored, string, error) {
	now := s.clock.Now()
	token := rand.Text()
	var row struct {
		Fingerprint []byte        `db:"fingerprint"`
		State       string        `db:"state"`
		Status      sql.NullInt32 `db:"response_status"`
		Header      []byte        `db:"response_header"`
		Body        []byte        `db:"response_body"`
		Claimed     bool          `db:"claimed"`
	}
	// One statement: insert a new claim, or take over an expired or abandoned
	// one; otherwise return the existing row untouched (claimed = false).
	err := s.db.GetContext(ctx, &row, `
		WITH claim AS (
			INSERT INTO platform.idempotency_keys (account_id, key, fingerprint, state, claim_token, created_at, updated_at)
			VALUES ($1, $2, $3, 'running', $7, $4, $4)
			ON CONFLICT (account_id, key) DO UPDATE
				SET fingerprint = excluded.fingerprint, state = 'running', claim_token = excluded.claim_token, response_status = NULL,
				    response_header = NULL, response_body = NULL, created_at = excluded.created_at, updated_at = excluded.updated_at
				WHERE idempotency_keys.created_at < $5
				   OR (idempotency_keys.state = 'running' AND idempotency_keys.updated_at < $6)
			RETURNING fingerprint, state, response_status, response_header, response_body, true AS claimed
		)
		SELECT * FROM claim
		UNION ALL
		SELECT fingerprint, state, response_status, response_header, response_body, false
		FROM platform.idempotency_keys WHERE account_id = $1 AND key = $2 AND NOT EXISTS (SELECT 1 FROM claim)`,
		accountID, key, fp, now, now.Add(-TTL), now.Add(-claimTimeout), token)
	if err != nil {
		return 0, nil, "", err
	}
	switch {
	case row.Claimed:
		return Claimed, nil, token, nil
	case string(row.Fingerprint) != string(fp):
		return Reused, nil, "", nil
	case row.State == "running":
		return Running, nil, "", nil
	}
	st := &Stored{Status: int(row.Status.Int32), Body: row.Body, Header: http.Header{}}
	if err := decodeHeader(row.Header, st.Header); err != nil {
		return 0, nil, "", err
	}
	return Replay, st, "", nil
}

// Complete stores the answer of a claimed key, if the claim is still token's.
func (s *Store) Complete(ctx context.Context, accountID, key, token string, st Stored) error {
	hdr, err := encodeHeader(st.Header)
	if err != nil {
		return err
	}
	_, err = s.db.ExecContext(ctx, `
		UPDATE platform.idempotency_keys SET state = 'done', response_status = $3, response_header = $4, response_body = $5, updated_at = $6
		WHERE account_id = $1 AND key = $2 AND claim_token = $7`, accountID, key, st.Status, string(hdr), st.Body, s.clock.Now(), token)
	return err
}

// Release forgets a claimed key, so the request may be tried again.
func (s *Store) Release(ctx context.Context, accountID, key, token string) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM platform.idempotency_keys WHERE account_id = $1 AND key = $2 AND state = 'running' AND claim_token = $3`, accountID, key, token)
	return err
}

// Purge deletes keys older than TTL.
func (s *Store) Purge(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM platform.idempotency_keys WHERE created_at < $1`, s.clock.Now().Add(-TTL))
	return err
}

var errBadHeader = errors.New("idempotency: stored header is corrupt")
