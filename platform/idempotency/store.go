// Package idempotency makes a POST safe to repeat: the first answer to an
// Idempotency-Key is kept 24 hours and replayed for the same request.
package idempotency

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd/platform/clock"
	"shipd/platform/postgres"
	"shipd/platform/secrets"
)

// TTL is how long a key's answer is kept.
const TTL = 24 * time.Hour

// claimTimeout is how long a key may stay "running" before another request
// may take it over (its first holder crashed or lost its connection).
const claimTimeout = 60 * time.Second

// Store keeps keys and answers in platform.idempotency_keys. Answers are
// sealed with the secrets box before they are stored: some carry a secret
// shown only once (a generated webhook secret), and none may rest in clear.
type Store struct {
	db       *sqlx.DB
	clock    clock.Clock
	box      *secrets.Box
	presence *postgres.Presence
}

// NewStore returns a Store on db. Claims carry presence's id, so another
// instance can take over the keys of one that crashed at once.
func NewStore(db *sqlx.DB, clk clock.Clock, box *secrets.Box, presence *postgres.Presence) *Store {
	return &Store{db: db, clock: clk, box: box, presence: presence}
}

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

// Request identifies one request for its key: Fingerprint hashes method,
// path and the body in canonical JSON; Literal hashes the body's bytes, as
// keys stored before canonical comparison were.
type Request struct {
	Fingerprint, Literal []byte
}

// NewRequest fingerprints a request.
func NewRequest(method, path string, body []byte) Request {
	literal := fingerprint(method, path, body)
	canonical, ok := canonicalJSON(body)
	if !ok {
		return Request{Fingerprint: literal, Literal: literal}
	}
	return Request{Fingerprint: fingerprint(method, path, canonical), Literal: literal}
}

func (r Request) matches(stored []byte) bool {
	return bytes.Equal(stored, r.Fingerprint) || bytes.Equal(stored, r.Literal)
}

func fingerprint(method, path string, body []byte) []byte {
	h := sha256.New()
	h.Write([]byte(method + " " + path + "\n"))
	h.Write(body)
	return h.Sum(nil)
}

// Claim takes key for req, or reports what stands in the way. A Claimed
// outcome comes with the claim's token, which Complete and Release need: a
// holder whose claim was taken over can no longer touch the row.
func (s *Store) Claim(ctx context.Context, accountID, key string, req Request) (Outcome, *Stored, string, error) {
	// A request racing another's first use of the key finds neither its own
	// insert nor, in the statement's snapshot, the winner's row: ask again,
	// and the next statement sees the committed row.
	for range 3 {
		outcome, stored, token, err := s.claim(ctx, accountID, key, req)
		if !errors.Is(err, sql.ErrNoRows) {
			return outcome, stored, token, err
		}
	}
	return 0, nil, "", errors.New("idempotency: key claim kept racing")
}

func (s *Store) claim(ctx context.Context, accountID, key string, req Request) (Outcome, *Stored, string, error) {
	now := s.clock.Now()
	token := rand.Text()
	var row struct {
		Fingerprint []byte        `db:"fingerprint"`
		State       string        `db:"state"`
		Status      sql.NullInt32 `db:"response_status"`
		Header      []byte        `db:"response_header"`
		Body        []byte        `db:"response_body"`
		Sealed      bool          `db:"response_sealed"`
		Claimed     bool          `db:"claimed"`
	}
	// One statement: insert a new claim, or take over an expired one or a
	// running one whose holder is gone (its instance's presence lock is
	// released, or it ran past claimTimeout); otherwise return the existing
	// row untouched (claimed = false). A holder that is gone committed
	// nothing: its answer would have committed with its writes.
	err := s.db.GetContext(ctx, &row, `
		WITH claim AS (
			INSERT INTO platform.idempotency_keys (account_id, key, fingerprint, state, claim_token, holder, created_at, updated_at)
			VALUES ($1, $2, $3, 'running', $7, $8, $4, $4)
			ON CONFLICT (account_id, key) DO UPDATE
				SET fingerprint = excluded.fingerprint, state = 'running', claim_token = excluded.claim_token,
				    holder = excluded.holder, response_status = NULL, response_header = NULL, response_body = NULL,
				    response_sealed = false, created_at = excluded.created_at, updated_at = excluded.updated_at
				WHERE idempotency_keys.created_at < $5
				   OR (idempotency_keys.state = 'running' AND (idempotency_keys.updated_at < $6
				       OR (idempotency_keys.holder IS NOT NULL AND NOT `+postgres.AliveSQL("idempotency_keys.holder")+`)))
			RETURNING fingerprint, state, response_status, response_header, response_body, response_sealed, true AS claimed
		)
		SELECT * FROM claim
		UNION ALL
		SELECT fingerprint, state, response_status, response_header, response_body, response_sealed, false
		FROM platform.idempotency_keys WHERE account_id = $1 AND key = $2 AND NOT EXISTS (SELECT 1 FROM claim)`,
		accountID, key, req.Fingerprint, now, now.Add(-TTL), now.Add(-claimTimeout), token, s.presence.ID())
	if err != nil {
		return 0, nil, "", err
	}
	switch {
	case row.Claimed:
		return Claimed, nil, token, nil
	case !req.matches(row.Fingerprint):
		return Reused, nil, "", nil
	case row.State == "running":
		return Running, nil, "", nil
	}
	st := &Stored{Status: int(row.Status.Int32), Body: row.Body, Header: http.Header{}}
	if row.Sealed {
		if st.Body, err = s.box.Open(string(row.Body)); err != nil {
			return 0, nil, "", fmt.Errorf("idempotency: stored answer: %w", err)
		}
	}
	if err := decodeHeader(row.Header, st.Header); err != nil {
		return 0, nil, "", err
	}
	return Replay, st, "", nil
}

// errClaimLost means another request took the key over while this one ran
// (its holder looked gone): this one's writes must not be kept.
var errClaimLost = errors.New("idempotency: the key was taken over by another request")

// Complete stores the answer of a claimed key in tx, the transaction that
// holds the request's own writes, if the claim is still token's: the answer
// and the resource commit together or not at all.
func (s *Store) Complete(ctx context.Context, tx *sqlx.Tx, accountID, key, token string, st Stored) error {
	hdr, err := encodeHeader(st.Header)
	if err != nil {
		return err
	}
	body, err := s.box.Seal(st.Body)
	if err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `
		UPDATE platform.idempotency_keys SET state = 'done', response_status = $3, response_header = $4, response_body = $5,
			response_sealed = true, updated_at = $6
		WHERE account_id = $1 AND key = $2 AND claim_token = $7 AND state = 'running'`,
		accountID, key, st.Status, string(hdr), []byte(body), s.clock.Now(), token)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return errClaimLost
	}
	return nil
}

// Release forgets a claimed key, so the request may be tried again; db is
// the store's database or the transaction of the request's writes.
func (s *Store) Release(ctx context.Context, db sqlx.ExecerContext, accountID, key, token string) error {
	_, err := db.ExecContext(ctx, `DELETE FROM platform.idempotency_keys WHERE account_id = $1 AND key = $2 AND state = 'running' AND claim_token = $3`, accountID, key, token)
	return err
}

// Purge deletes keys older than TTL.
func (s *Store) Purge(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM platform.idempotency_keys WHERE created_at < $1`, s.clock.Now().Add(-TTL))
	return err
}

var errBadHeader = errors.New("idempotency: stored header is corrupt")
