package auth

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"shipd/platform/clock"
	"shipd/platform/ids"
	"shipd/platform/postgres"
)

// Store keeps accounts and API keys in the platform schema.
type Store struct {
	db    *sqlx.DB
	clock clock.Clock
	cache keyCache
}

// NewStore reads and writes the platform schema of db; looked-up keys are
// cached for keyCacheTTL per Store (ADR 0013).
func NewStore(db *sqlx.DB, clk clock.Clock) *Store { return &Store{db: db, clock: clk} }

// Account is a customer of the service; it owns every resource.
type Account struct {
	ID        string    `db:"id"`
	Name      string    `db:"name"`
	Plan      Plan      `db:"plan"`
	RateLimit *int      `db:"rate_limit"`
	CreatedAt time.Time `db:"created_at"`
}

// KeyInfo describes a key without the key itself.
type KeyInfo struct {
	ID          string         `db:"id"`
	AccountID   string         `db:"account_id"`
	AccountName string         `db:"account_name"`
	Name        string         `db:"name"`
	Prefix      string         `db:"key_prefix"`
	Permissions pq.StringArray `db:"permissions"`
	CreatedAt   time.Time      `db:"created_at"`
	RevokedAt   *time.Time     `db:"revoked_at"`
}

// NewKeyRequest is what `shipd keys create` asks for.
type NewKeyRequest struct {
	AccountName string
	Plan        Plan // empty: keep an existing account's plan, free for a new one
	RateLimit   *int
	Permissions []Permission
	Name        string
}

// CreateKey creates the account when new (updating plan and limit when
// given) and a key for it. The key is returned once and never stored.
func (s *Store) CreateKey(ctx context.Context, req NewKeyRequest) (KeyInfo, string, error) {
	if req.AccountName == "" {
		return KeyInfo{}, "", errors.New("account name is required")
	}
	if req.RateLimit != nil && *req.RateLimit < 1 {
		return KeyInfo{}, "", errors.New("rate limit must be at least 1 request per minute")
	}
	if len(req.Permissions) == 0 {
		req.Permissions = AllPermissions
	}
	key := newKey()
	perms := make(pq.StringArray, len(req.Permissions))
	for i, p := range req.Permissions {
		perms[i] = string(p)
	}
	now := s.clock.Now()
	info := KeyInfo{ID: ids.NewAt(ids.APIKey, now), Name: req.Name, Prefix: key[:len(keyPrefix)+6], Permissions: perms, CreatedAt: now, AccountName: req.AccountName}
	err := postgres.InTx(ctx, s.db, func(tx *sqlx.Tx) error {
		acc, err := s.upsertAccount(ctx, tx, req, now)
		if err != nil {
			return err
		}
		info.AccountID = acc
		_, err = tx.ExecContext(ctx, `INSERT INTO platform.api_keys (id, account_id, name, key_hash, key_prefix, permissions, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`, info.ID, acc, info.Name, hashKey(key), info.Prefix, perms, now)
		return err
	})
	if err != nil {
		return KeyInfo{}, "", fmt.Errorf("creating key: %w", err)
	}
	s.cache.clear() // the account's plan or limit may have changed
	return info, key, nil
}

func (s *Store) upsertAccount(ctx context.Context, tx *sqlx.Tx, req NewKeyRequest, now time.Time) (string, error) {
	plan := req.Plan
	if plan == "" {
		plan = PlanFree
	}
	var id string
	err := tx.GetContext(ctx, &id, `
		INSERT INTO platform.accounts (id, name, plan, rate_limit, created_at) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (name) DO UPDATE SET
			plan = CASE WHEN $6 THEN excluded.plan ELSE accounts.plan END,
			rate_limit = CASE WHEN $7 THEN excluded.rate_limit ELSE accounts.rate_limit END
		RETURNING id`,
		ids.NewAt(ids.Account, now), req.AccountName, plan, req.RateLimit, now, req.Plan != "", req.RateLimit != nil)
	return id, err
}

// ListKeys returns the keys of an account (every account when name is empty).
func (s *Store) ListKeys(ctx context.Context, accountName string) ([]KeyInfo, error) {
	var keys []KeyInfo
	err := s.db.SelectContext(ctx, &keys, `
		SELECT k.id, k.account_id, a.name AS account_name, k.name, k.key_prefix, k.permissions, k.created_at, k.revoked_at
		FROM platform.api_keys k JOIN platform.accounts a ON a.id = k.account_id
		WHERE $1 = '' OR a.name = $1 ORDER BY k.created_at, k.id`, accountName)
	return keys, err
}

// ErrNoActiveKey is a key to revoke that does not exist, is revoked
// already, or belongs to another account.
var ErrNoActiveKey = errors.New("no such active key")

// RevokeKey makes a key unusable from now on.
func (s *Store) RevokeKey(ctx context.Context, keyID string) error {
	return s.revoke(ctx, keyID, "")
}

// RevokeAccountKey revokes a key of accountID only: the dashboard's revoke,
// where the key id comes from a form.
func (s *Store) RevokeAccountKey(ctx context.Context, accountID, keyID string) error {
	if accountID == "" {
		return ErrNoActiveKey
	}
	return s.revoke(ctx, keyID, accountID)
}

func (s *Store) revoke(ctx context.Context, keyID, accountID string) error {
	res, err := s.db.ExecContext(ctx, `UPDATE platform.api_keys SET revoked_at = $2
		WHERE id = $1 AND revoked_at IS NULL AND ($3 = '' OR account_id = $3)`, keyID, s.clock.Now(), accountID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%w: %s", ErrNoActiveKey, keyID)
	}
	s.cache.clear()
	return nil
}

// ErrUnknownKey means the bearer key is not a live key.
var ErrUnknownKey = errors.New("unknown or revoked API key")

// Authenticate resolves a bearer key to its principal.
func (s *Store) Authenticate(ctx context.Context, key string) (Principal, error) {
	if !looksLikeKey(key) {
		return Principal{}, ErrUnknownKey
	}
	hash := hashKey(key)
	now := time.Now() // wall time: the cache must expire even under a manual clock
	if p, ok := s.cache.get(hash, now); ok {
		return p, nil
	}
	var row struct {
		KeyID       string         `db:"id"`
		Hash        []byte         `db:"key_hash"`
		AccountID   string         `db:"account_id"`
		Plan        Plan           `db:"plan"`
		RateLimit   *int           `db:"rate_limit"`
		Permissions pq.StringArray `db:"permissions"`
	}
	err := s.db.GetContext(ctx, &row, `
		SELECT k.id, k.key_hash, k.account_id, a.plan, a.rate_limit, k.permissions
		FROM platform.api_keys k JOIN platform.accounts a ON a.id = k.account_id
		WHERE k.key_hash = $1 AND k.revoked_at IS NULL`, hash)
	if errors.Is(err, sql.ErrNoRows) {
		return Principal{}, ErrUnknownKey
	}
	if err != nil {
		return Principal{}, err
	}
	if subtle.ConstantTimeCompare(row.Hash, hash) != 1 {
		return Principal{}, ErrUnknownKey
	}
	perms := make([]Permission, len(row.Permissions))
	for i, p := range row.Permissions {
		perms[i] = Permission(p)
	}
	p := Principal{AccountID: row.AccountID, KeyID: row.KeyID, Plan: row.Plan,
		RateLimit: row.Plan.RequestsPerMinute(row.RateLimit), Permissions: perms}
	s.cache.put(hash, p, now)
	return p, nil
}
