// Package adapters is the channel module's driven side: the PostgreSQL
// repository of the write model and the list read model.
package adapters

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/jmoiron/sqlx"

	"shipd/modules/channels/domain"
	"shipd/platform/fault"
	"shipd/platform/messaging"
	"shipd/platform/postgres"
	"shipd/platform/secrets"
)

// PostgresRepository keeps channels in channels.channels, secret settings
// sealed, and publishes events through the outbox in the same transaction.
type PostgresRepository struct {
	db     *sqlx.DB
	box    *secrets.Box
	outbox *messaging.Outbox
}

// NewPostgresRepository needs the channels module's database, the box whose
// key seals secret settings (a row sealed under another key fails to load),
// and the outbox the events go through.
func NewPostgresRepository(db *sqlx.DB, box *secrets.Box, outbox *messaging.Outbox) *PostgresRepository {
	return &PostgresRepository{db: db, box: box, outbox: outbox}
}

var _ domain.Repository = (*PostgresRepository)(nil)

type channelRow struct {
	ID              string         `db:"id"`
	AccountID       string         `db:"account_id"`
	Name            string         `db:"name"`
	Description     string         `db:"description"`
	Provider        string         `db:"provider"`
	Status          string         `db:"status"`
	Settings        string         `db:"settings"` // jsonb: written as text (binary parameters)
	SecretSettings  sql.NullString `db:"secret_settings"`
	ValidationError sql.NullString `db:"validation_error"`
	ValidatedAt     *time.Time     `db:"validated_at"`
	Version         int            `db:"version"`
	CreatedAt       time.Time      `db:"created_at"`
	UpdatedAt       time.Time      `db:"updated_at"`
}

const columns = `id, account_id, name, description, provider, status, settings, secret_settings, validation_error, validated_at, version, created_at, updated_at`

// Add inserts the channel and publishes events.
func (r *PostgresRepository) Add(ctx context.Context, ch *domain.Channel, events ...domain.Event) error {
	row, err := r.toRow(ch)
	if err != nil {
		return err
	}
	return postgres.InTx(ctx, r.db, func(tx *sqlx.Tx) error {
		_, err := tx.NamedExecContext(ctx, `INSERT INTO channels.channels (`+columns+`) VALUES
			(:id, :account_id, :name, :description, :provider, :status, :settings, :secret_settings, :validation_error, :validated_at, :version, :created_at, :updated_at)`, row)
		if postgres.IsUniqueViolation(err, "channels_account_name_key") {
			return fault.Field("name", "has already been taken by another channel of this account")
		}
		if err != nil {
			return fmt.Errorf("inserting channel: %w", err)
		}
		return r.publish(ctx, tx, events, ch)
	})
}

// Get loads one channel.
func (r *PostgresRepository) Get(ctx context.Context, id string) (*domain.Channel, error) {
	return r.load(ctx, postgres.Reader(ctx, r.db), id, "")
}

// Update changes one channel under a row lock.
func (r *PostgresRepository) Update(ctx context.Context, id string, fn func(ch *domain.Channel) ([]domain.Event, error)) (*domain.Channel, error) {
	var out *domain.Channel
	err := postgres.InTx(ctx, r.db, func(tx *sqlx.Tx) error {
		ch, events, err := r.change(ctx, tx, id, fn)
		if err != nil {
			return err
		}
		out = ch
		if len(events) == 0 {
			return nil
		}
		row, err := r.toRow(ch)
		if err != nil {
			return err
		}
		_, err = tx.NamedExecContext(ctx, `UPDATE channels.channels SET name = :name, description = :description,
			status = :status, settings = :settings, secret_settings = :secret_settings, validation_error = :validation_error,
			validated_at = :validated_at, version = :version, updated_at = :updated_at WHERE id = :id`, row)
		if postgres.IsUniqueViolation(err, "channels_account_name_key") {
			return fault.Field("name", "has already been taken by another channel of this account")
		}
		if err != nil {
			return fmt.Errorf("updating channel: %w", err)
		}
		return r.publish(ctx, tx, events, ch)
	})
	return out, err
}

// RenewSecrets rewrites the sealed secret settings alone, under the row's
// lock, when fn renewed one: version, updated_at and the outbox are left
// alone, so no client and no subscriber sees a change (ADR 0042). The row
// lock orders it with a client's edit, which reads the renewed value under
// the same lock.
func (r *PostgresRepository) RenewSecrets(ctx context.Context, id string, fn func(ch *domain.Channel) (bool, error)) error {
	return postgres.InTx(ctx, r.db, func(tx *sqlx.Tx) error {
		ch, err := r.load(ctx, tx, id, " FOR UPDATE")
		if err != nil {
			return err
		}
		renewed, err := fn(ch)
		if err != nil || !renewed {
			return err
		}
		row, err := r.toRow(ch)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE channels.channels SET secret_settings = $1 WHERE id = $2`, row.SecretSettings, id); err != nil {
			return fmt.Errorf("renewing channel secrets: %w", err)
		}
		return nil
	})
}

// Delete removes one channel under a row lock.
func (r *PostgresRepository) Delete(ctx context.Context, id string, fn func(ch *domain.Channel) ([]domain.Event, error)) error {
	return postgres.InTx(ctx, r.db, func(tx *sqlx.Tx) error {
		ch, events, err := r.change(ctx, tx, id, fn)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM channels.channels WHERE id = $1`, id); err != nil {
			return fmt.Errorf("deleting channel: %w", err)
		}
		return r.publish(ctx, tx, events, ch)
	})
}

// change begins Update and Delete alike: the channel's lock first, which
// keeps its events in order (postgres.LockForChange), then the channel read
// under its row lock and changed by fn.
func (r *PostgresRepository) change(ctx context.Context, tx *sqlx.Tx, id string, fn func(ch *domain.Channel) ([]domain.Event, error)) (*domain.Channel, []domain.Event, error) {
	if err := postgres.LockForChange(ctx, tx, id); err != nil {
		return nil, nil, err
	}
	ch, err := r.load(ctx, tx, id, " FOR UPDATE")
	if err != nil {
		return nil, nil, err
	}
	events, err := fn(ch)
	return ch, events, err
}

// publish writes the change's events and sends what ch's change asked of
// the tracking module.
func (r *PostgresRepository) publish(ctx context.Context, tx *sqlx.Tx, events []domain.Event, ch *domain.Channel) error {
	if err := messaging.PublishAll(ctx, r.outbox, tx, events); err != nil {
		return err
	}
	return r.outbox.Send(ctx, tx, trackingRequests(ch)...)
}

func (r *PostgresRepository) load(ctx context.Context, q sqlx.QueryerContext, id, lock string) (*domain.Channel, error) {
	var row channelRow
	err := sqlx.GetContext(ctx, q, &row, `SELECT `+columns+` FROM channels.channels WHERE id = $1`+lock, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fault.NotFound("Shipping channel")
	}
	if err != nil {
		return nil, fmt.Errorf("loading channel: %w", err)
	}
	return r.fromRow(row)
}

func (r *PostgresRepository) toRow(ch *domain.Channel) (channelRow, error) {
	s := ch.Stored()
	plain, secret := map[string]any{}, map[string]any{}
	for k, v := range s.Settings {
		if s.SecretKeys[k] {
			secret[k] = v
		} else {
			plain[k] = v
		}
	}
	plainJSON, err := json.Marshal(plain)
	if err != nil {
		return channelRow{}, err
	}
	row := channelRow{ID: s.ID, AccountID: s.AccountID, Name: s.Name, Description: s.Description, Provider: s.Provider,
		Status: string(s.Status), Settings: string(plainJSON), ValidatedAt: s.ValidatedAt, Version: s.Version,
		CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt,
		ValidationError: sql.NullString{String: s.ValidationError, Valid: s.ValidationError != ""}}
	// The sealed blob also remembers which keys are secret, so a channel
	// whose optional secret is absent still masks it correctly once set.
	sealedInput, err := json.Marshal(sealedSettings{Values: secret, Keys: keys(s.SecretKeys)})
	if err != nil {
		return channelRow{}, err
	}
	sealed, err := r.box.Seal(sealedInput)
	if err != nil {
		return channelRow{}, err
	}
	row.SecretSettings = sql.NullString{String: sealed, Valid: true}
	return row, nil
}

// sealedSettings is the plaintext inside secret_settings.
type sealedSettings struct {
	Values map[string]any `json:"values"`
	Keys   []string       `json:"keys"`
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func (r *PostgresRepository) fromRow(row channelRow) (*domain.Channel, error) {
	settings := map[string]any{}
	if err := json.Unmarshal([]byte(row.Settings), &settings); err != nil {
		return nil, fmt.Errorf("channel %s settings: %w", row.ID, err)
	}
	secretKeys := map[string]bool{}
	if row.SecretSettings.Valid {
		plain, err := r.box.Open(row.SecretSettings.String)
		if err != nil {
			return nil, fmt.Errorf("channel %s: %w", row.ID, err)
		}
		var sealed sealedSettings
		if err := json.Unmarshal(plain, &sealed); err != nil {
			return nil, fmt.Errorf("channel %s secret settings: %w", row.ID, err)
		}
		maps.Copy(settings, sealed.Values)
		for _, k := range sealed.Keys {
			secretKeys[k] = true
		}
	}
	return domain.Restore(domain.Stored{
		ID: row.ID, AccountID: row.AccountID, Name: row.Name, Description: row.Description, Provider: row.Provider,
		Status: domain.Status(row.Status), Settings: settings, SecretKeys: secretKeys,
		ValidationError: row.ValidationError.String, ValidatedAt: utc(row.ValidatedAt), Version: row.Version,
		CreatedAt: row.CreatedAt.UTC(), UpdatedAt: row.UpdatedAt.UTC(),
	}), nil
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
