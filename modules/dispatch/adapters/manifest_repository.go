package adapters

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"shipd/modules/dispatch/contract"
	"shipd/modules/dispatch/domain"
	"shipd/modules/dispatch/domain/manifest"
	"shipd/platform/carrier"
	"shipd/platform/fault"
	"shipd/platform/messaging"
	"shipd/platform/postgres"
)

// ManifestRepository keeps manifests in dispatch.manifests, the shipments
// each holds in dispatch.manifest_shipments (a shipment is on one at most),
// their documents in dispatch.manifest_documents, and publishes events
// through the outbox in the same transaction.
type ManifestRepository struct {
	db     *sqlx.DB
	outbox *messaging.Outbox
}

// NewManifestRepository needs the dispatch module's database and the outbox.
func NewManifestRepository(db *sqlx.DB, outbox *messaging.Outbox) *ManifestRepository {
	return &ManifestRepository{db: db, outbox: outbox}
}

var _ manifest.Repository = (*ManifestRepository)(nil)

type manifestRow struct {
	ID               string         `db:"id"`
	AccountID        string         `db:"account_id"`
	ChannelID        string         `db:"shipping_channel_id"`
	Provider         string         `db:"provider"`
	Status           string         `db:"status"`
	Date             string         `db:"date"`
	ShipmentIDs      pq.StringArray `db:"shipment_ids"`
	ParcelCount      int            `db:"parcel_count"`
	TotalWeightKG    float64        `db:"total_weight_kg"`
	Sender           string         `db:"sender"`
	Origin           string         `db:"origin"`
	Document         string         `db:"document"`
	CarrierReference string         `db:"carrier_reference"`
	Version          int            `db:"version"`
	CreatedAt        time.Time      `db:"created_at"`
	UpdatedAt        time.Time      `db:"updated_at"`
}

const manifestColumns = `id, account_id, shipping_channel_id, provider, status, date, shipment_ids, parcel_count, total_weight_kg,
	sender, origin, document, carrier_reference, version, created_at, updated_at`

// Add stores a manifest being created, in a transaction of its own, with
// its shipments held: one another manifest holds is refused on its index
// (or on shipment_ids when the manifest named none).
func (r *ManifestRepository) Add(ctx context.Context, m *manifest.Manifest) error {
	row, err := toManifestRow(m.Stored())
	if err != nil {
		return err
	}
	return postgres.InOwnTx(ctx, r.db, func(tx *sqlx.Tx) error {
		var held []string
		if err := tx.SelectContext(ctx, &held, `SELECT shipment_id FROM dispatch.manifest_shipments WHERE shipment_id = ANY($1) FOR UPDATE`,
			row.ShipmentIDs); err != nil {
			return fmt.Errorf("reading the shipments' manifests: %w", err)
		}
		if len(held) > 0 {
			return onManifests(row.ShipmentIDs, held)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO dispatch.manifest_shipments (shipment_id, manifest_id) SELECT unnest($1::text[]), $2`,
			row.ShipmentIDs, row.ID); err != nil {
			if postgres.IsUniqueViolation(err, "") {
				return fault.Field("shipment_ids", "names a shipment another manifest took at the same moment; try again")
			}
			return fmt.Errorf("holding the manifest's shipments: %w", err)
		}
		_, err := tx.NamedExecContext(ctx, `INSERT INTO dispatch.manifests (`+manifestColumns+`) VALUES (:id, :account_id,
			:shipping_channel_id, :provider, :status, :date, :shipment_ids, :parcel_count, :total_weight_kg, :sender, :origin,
			:document, :carrier_reference, :version, :created_at, :updated_at)`, row)
		if err != nil {
			return fmt.Errorf("inserting manifest: %w", err)
		}
		return nil
	})
}

// onManifests is the refusal of shipments another manifest holds.
func onManifests(ids, held []string) error {
	on := map[string]bool{}
	for _, id := range held {
		on[id] = true
	}
	errs := fault.FieldErrors{}
	for i, id := range ids {
		if on[id] {
			errs.Add("shipment_ids."+strconv.Itoa(i), "is on a manifest already")
		}
	}
	return errs.Err()
}

// Get loads one manifest.
func (r *ManifestRepository) Get(ctx context.Context, id string) (*manifest.Manifest, error) {
	return r.load(ctx, postgres.Reader(ctx, r.db), id, "")
}

// Complete changes the manifest under its lock, stores its document and
// publishes the events.
func (r *ManifestRepository) Complete(ctx context.Context, id string, document []byte, fn func(m *manifest.Manifest) ([]domain.Event, error)) (*manifest.Manifest, error) {
	var out *manifest.Manifest
	err := postgres.InTx(ctx, r.db, func(tx *sqlx.Tx) error {
		if err := postgres.LockForChange(ctx, tx, id); err != nil {
			return err
		}
		m, err := r.load(ctx, tx, id, " FOR UPDATE")
		if err != nil {
			return err
		}
		events, err := fn(m)
		if err != nil {
			return err
		}
		row, err := toManifestRow(m.Stored())
		if err != nil {
			return err
		}
		if _, err := tx.NamedExecContext(ctx, `UPDATE dispatch.manifests SET status = :status, document = :document,
			carrier_reference = :carrier_reference, version = :version, updated_at = :updated_at WHERE id = :id`, row); err != nil {
			return fmt.Errorf("updating manifest: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO dispatch.manifest_documents (manifest_id, data) VALUES ($1, $2)
			ON CONFLICT (manifest_id) DO UPDATE SET data = excluded.data`, id, document); err != nil {
			return fmt.Errorf("storing the manifest's document: %w", err)
		}
		out = m
		return messaging.PublishAll(ctx, r.outbox, tx, events)
	})
	return out, err
}

// Forget removes a manifest being created and lets its shipments go, in a
// transaction of its own.
func (r *ManifestRepository) Forget(ctx context.Context, id string) error {
	return postgres.InOwnTx(ctx, r.db, func(tx *sqlx.Tx) error {
		var gone int
		if err := tx.GetContext(ctx, &gone, `WITH m AS (DELETE FROM dispatch.manifests WHERE id = $1 AND status = 'creating' RETURNING id)
			SELECT count(*) FROM m`, id); err != nil {
			return fmt.Errorf("forgetting the manifest: %w", err)
		}
		if gone == 0 {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM dispatch.manifest_shipments WHERE manifest_id = $1`, id); err != nil {
			return fmt.Errorf("letting the manifest's shipments go: %w", err)
		}
		return nil
	})
}

// Stale are the manifests being created since before.
func (r *ManifestRepository) Stale(ctx context.Context, before time.Time, limit int) ([]string, error) {
	var ids []string
	err := r.db.SelectContext(ctx, &ids, `SELECT id FROM dispatch.manifests WHERE status = 'creating' AND updated_at < $1
		ORDER BY updated_at LIMIT $2`, before, limit)
	return ids, err
}

// Document is the manifest's stored document.
func (r *ManifestRepository) Document(ctx context.Context, id string) ([]byte, error) {
	var data []byte
	err := sqlx.GetContext(ctx, postgres.Reader(ctx, r.db), &data, `SELECT data FROM dispatch.manifest_documents WHERE manifest_id = $1`, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fault.NotFound("Manifest document")
	}
	return data, err
}

func (r *ManifestRepository) load(ctx context.Context, q sqlx.QueryerContext, id, lock string) (*manifest.Manifest, error) {
	var row manifestRow
	err := sqlx.GetContext(ctx, q, &row, `SELECT `+manifestColumns+` FROM dispatch.manifests WHERE id = $1`+lock, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fault.NotFound("Manifest")
	}
	if err != nil {
		return nil, fmt.Errorf("loading manifest: %w", err)
	}
	var sender contract.Contact
	var origin carrier.Address
	if err := json.Unmarshal([]byte(row.Sender), &sender); err != nil {
		return nil, fmt.Errorf("manifest %s sender: %w", row.ID, err)
	}
	if err := json.Unmarshal([]byte(row.Origin), &origin); err != nil {
		return nil, fmt.Errorf("manifest %s origin: %w", row.ID, err)
	}
	return manifest.Restore(manifest.Stored{ID: row.ID, AccountID: row.AccountID, ChannelID: row.ChannelID, Provider: row.Provider,
		Status: manifest.Status(row.Status), Date: row.Date, ShipmentIDs: row.ShipmentIDs, ParcelCount: row.ParcelCount,
		TotalWeightKG: row.TotalWeightKG, Sender: sender.Carrier(), Origin: origin, Document: row.Document,
		CarrierReference: row.CarrierReference, Version: row.Version, CreatedAt: row.CreatedAt.UTC(), UpdatedAt: row.UpdatedAt.UTC()}), nil
}

func toManifestRow(s manifest.Stored) (manifestRow, error) {
	sender, err := json.Marshal(contract.ContactOf(s.Sender))
	if err != nil {
		return manifestRow{}, err
	}
	origin, err := json.Marshal(s.Origin)
	if err != nil {
		return manifestRow{}, err
	}
	return manifestRow{ID: s.ID, AccountID: s.AccountID, ChannelID: s.ChannelID, Provider: s.Provider, Status: string(s.Status),
		Date: s.Date, ShipmentIDs: s.ShipmentIDs, ParcelCount: s.ParcelCount, TotalWeightKG: s.TotalWeightKG,
		Sender: string(sender), Origin: string(origin), Document: s.Document, CarrierReference: s.CarrierReference,
		Version: s.Version, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt}, nil
}
