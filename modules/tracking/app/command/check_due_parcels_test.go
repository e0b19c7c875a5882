package command_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/jmoiron/sqlx"

	"shipd/adapters/carriers/sandbox"
	channels "shipd/modules/channels/contract"
	"shipd/modules/tracking/adapters"
	"shipd/modules/tracking/app/command"
	"shipd/modules/tracking/contract"
	"shipd/modules/tracking/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/ids"
	"shipd/platform/messaging"
	"shipd/platform/postgres"
	"shipd/platform/postgres/pgtest"
)

var start = time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)

// The lease the worker takes; the tests move the clock past it.
const lease = 2 * time.Minute

// checks is one database with the real repository, queue and sandbox
// carrier behind the scheduled checks' handler.
type checks struct {
	t       *testing.T
	db      *sqlx.DB
	clk     *clock.Manual
	repo    *adapters.PostgresRepository
	queue   *adapters.CheckQueue
	sandbox *sandbox.Carrier
	handler command.CheckDueParcelsHandler
}

func newChecks(t *testing.T) *checks {
	ctx := context.Background()
	db, err := postgres.Open(ctx, pgtest.NewDatabase(t), postgres.Pool{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := messaging.InitializeStreams(ctx, db, []string{"tracking"}); err != nil {
		t.Fatal(err)
	}
	c := &checks{t: t, db: db, clk: clock.NewManual(start)}
	c.repo = adapters.NewPostgresRepository(db, messaging.NewOutbox(watermill.NopLogger{}))
	c.queue = adapters.NewCheckQueue(db, c.clk)
	c.sandbox = sandbox.NewWithConfig(sandbox.Config{Clock: c.clk})
	// The claim (query.ClaimDueChecks) reads channels through the facade;
	// these tests hand the channel over with each claimed parcel instead
	// (dueChecks).
	c.handler = command.NewCheckDueParcels(c.repo, c.queue, carrier.NewRegistry(c.sandbox), c.clk, 5*time.Second)
	return c
}

// channel is an active sandbox channel as the channels facade hands it out.
var channel = channels.ChannelAccess{ID: "ch_test", AccountID: "acc_test", Name: "Sandbox", Provider: sandbox.Code, Status: "active",
	Settings: map[string]any{"clientId": "demo-client", "clientSecret": "demo-secret", "productType": "STANDARD"}}

// track starts tracking a sandbox number whose journey began age ago.
func (c *checks) track(number string, age time.Duration) string {
	c.t.Helper()
	now := c.clk.Now()
	p, err := domain.New(ids.NewAt(ids.TrackingParcel, now), channel.AccountID, sandbox.Code,
		domain.Request{TrackingNumber: number, ChannelID: channel.ID}, now.Add(-age))
	if err != nil {
		c.t.Fatal(err)
	}
	if err := c.repo.Add(context.Background(), p); err != nil {
		c.t.Fatal(err)
	}
	// Due now, as a parcel created now is; its journey began age ago.
	if _, err := c.db.Exec(`UPDATE tracking.parcels SET next_check_at = $2 WHERE id = $1`, p.ID(), now); err != nil {
		c.t.Fatal(err)
	}
	return p.ID()
}

// claim leases what is due, through the real queue, with the channel.
func (c *checks) claim() []command.DueCheck {
	c.t.Helper()
	states, err := c.queue.Claim(context.Background(), 100, lease)
	if err != nil {
		c.t.Fatal(err)
	}
	due := make([]command.DueCheck, len(states))
	for i, st := range states {
		due[i] = command.DueCheck{Parcel: st, Channel: channel}
	}
	return due
}

// parcel is a parcel as stored.
type parcel struct {
	domain.Stored
	LeaseUntil  *time.Time
	NextCheckAt *time.Time // the column, not the state's copy
	Updates     []string   // carrier codes, oldest first
}

func (c *checks) parcel(id string) parcel {
	c.t.Helper()
	var row struct {
		State       []byte     `db:"state"`
		Version     int        `db:"version"`
		LeaseUntil  *time.Time `db:"lease_until"`
		NextCheckAt *time.Time `db:"next_check_at"`
	}
	if err := c.db.Get(&row, `SELECT state, version, lease_until, next_check_at FROM tracking.parcels WHERE id = $1`, id); err != nil {
		c.t.Fatal(err)
	}
	var p parcel
	if err := json.Unmarshal(row.State, &p.Stored); err != nil {
		c.t.Fatal(err)
	}
	if row.Version != p.Version {
		c.t.Fatalf("%s: column version %d, state version %d", id, row.Version, p.Version)
	}
	p.LeaseUntil, p.NextCheckAt = row.LeaseUntil, row.NextCheckAt
	if err := c.db.Select(&p.Updates, `SELECT carrier_code FROM tracking.status_updates WHERE parcel_id = $1 ORDER BY occurred_at, id`, id); err != nil {
		c.t.Fatal(err)
	}
	return p
}

// published is one parcel's events of a type as "v<version>[:previous>status]", in publishing order.
func (c *checks) published(eventType, id string) []string {
	c.t.Helper()
	var payloads []string
	err := c.db.Select(&payloads, `SELECT payload FROM "watermill_tracking"
		WHERE metadata->>'name' = $2 AND payload->'tracking_parcel'->>'id' = $1 ORDER BY "offset"`, id, eventType)
	if err != nil {
		c.t.Fatal(err)
	}
	out := make([]string, len(payloads))
	for i, raw := range payloads {
		var e struct {
			Version        int `json:"version"`
			TrackingParcel struct {
				Status         string `json:"status"`
				PreviousStatus string `json:"previous_status"`
			} `json:"tracking_parcel"`
		}
		if err := json.Unmarshal([]byte(raw), &e); err != nil {
			c.t.Fatal(err)
		}
		out[i] = fmt.Sprintf("v%d", e.Version)
		if eventType == contract.EventStatusChanged {
			out[i] += ":" + e.TrackingParcel.PreviousStatus + ">" + e.TrackingParcel.Status
		}
	}
	return out
}

// carrierCodes is what the sandbox reports for number now, oldest first.
func (c *checks) carrierCodes(number string, since time.Time) []string {
	c.t.Helper()
	tr, err := c.sandbox.Track(context.Background(), carrier.Settings(channel.Settings), carrier.TrackingRequest{TrackingNumber: number, Since: since})
	if err != nil {
		c.t.Fatal(err)
	}
	var codes []string
	for _, e := range tr.Events {
		codes = append(codes, e.Code)
	}
	return codes
}

func number(journey int, serial int) string {
	return sandbox.S10("SB", fmt.Sprintf("%d%07d", journey, serial), "CZ")
}

// TestOneCommitRecordsEachCheckAsAlone: the outcomes of one group commit,
// a carrier that does not answer among them, are each recorded as a check
// recorded alone would be: status, updates, counters, schedule and lease
// per parcel, and an updated (and status_changed) event with the parcel's
// new version only for the parcels that changed.
func TestOneCommitRecordsEachCheckAsAlone(t *testing.T) {
	c := newChecks(t)
	ctx := context.Background()
	delivered := c.track(number(0, 1), 30*time.Hour)
	onTheWay := c.track(number(1, 2), 25*time.Hour)
	down := c.track(number(6, 3), 20*time.Hour) // the sandbox answers 503 for this one
	fresh := c.track(number(0, 4), 0)
	unknown := c.track(number(4, 5), 5*time.Hour)
	gone := c.track(number(0, 6), 5*time.Hour)

	due := c.claim()
	if len(due) != 6 {
		t.Fatalf("claimed %d parcels, want 6", len(due))
	}
	// The batch keeps this order: the failure in the middle.
	order := []string{delivered, onTheWay, down, fresh, unknown, gone}
	slices.SortFunc(due, func(a, b command.DueCheck) int {
		return slices.Index(order, a.Parcel.ID) - slices.Index(order, b.Parcel.ID)
	})
	// Deleted after the claim: its outcome has nowhere to go.
	if _, err := c.db.Exec(`DELETE FROM tracking.parcels WHERE id = $1`, gone); err != nil {
		t.Fatal(err)
	}
	c.clk.Advance(time.Second)
	if err := c.handler.CheckTogether(ctx, due); err != nil {
		t.Fatal(err)
	}
	now := c.clk.Now()
	next := now.Add(6 * time.Hour)

	for _, tc := range []struct {
		id, status string
		age        time.Duration
	}{
		{delivered, "delivered", 30 * time.Hour},
		{onTheWay, "delivery_failed", 25 * time.Hour},
		{fresh, "waiting_for_shipment", 0},
	} {
		p := c.parcel(tc.id)
		want := c.carrierCodes(p.TrackingNumber, start.Add(-tc.age))
		if p.Status != carrier.TrackingStatus(tc.status) || p.Version != 2 || p.ChecksDone != 1 || p.LastCheckError != "" ||
			p.LeaseUntil != nil || !slices.Equal(p.Updates, want) || len(want) == 0 {
			t.Errorf("%s: status %s v%d checks %d error %q lease %v updates %v (carrier: %v)",
				p.TrackingNumber, p.Status, p.Version, p.ChecksDone, p.LastCheckError, p.LeaseUntil, p.Updates, want)
		}
		if got := c.published(contract.EventUpdated, tc.id); !slices.Equal(got, []string{"v2"}) {
			t.Errorf("%s: updated events %v", p.TrackingNumber, got)
		}
		if got := c.published(contract.EventStatusChanged, tc.id); !slices.Equal(got, []string{"v2:created>" + tc.status}) {
			t.Errorf("%s: status_changed events %v", p.TrackingNumber, got)
		}
		// Delivered ends the journey; the others are checked again in 6 h.
		if terminal := tc.status == "delivered"; (p.NextCheckAt == nil) != terminal || (!terminal && !p.NextCheckAt.Equal(next)) {
			t.Errorf("%s: next check %v", p.TrackingNumber, p.NextCheckAt)
		}
	}

	failed := c.parcel(down)
	if failed.Status != carrier.StatusCreated || failed.Version != 1 || failed.ChecksDone != 1 || !strings.Contains(failed.LastCheckError, "503") ||
		failed.LeaseUntil != nil || failed.NextCheckAt == nil || !failed.NextCheckAt.Equal(next) || len(failed.Updates) != 0 {
		t.Errorf("failed check: %+v", failed)
	}
	if got := append(c.published(contract.EventUpdated, down), c.published(contract.EventStatusChanged, down)...); len(got) != 0 {
		t.Errorf("a failed check published %v", got)
	}

	notRecognized := c.parcel(unknown)
	if notRecognized.Status != carrier.StatusNotRecognized || notRecognized.Version != 2 || notRecognized.LeaseUntil != nil {
		t.Errorf("unknown number: %+v", notRecognized)
	}
	if got := c.published(contract.EventStatusChanged, unknown); !slices.Equal(got, []string{"v2:created>not_recognized"}) {
		t.Errorf("unknown number: status_changed events %v", got)
	}

	var left int
	if err := c.db.Get(&left, `SELECT count(*) FROM tracking.parcels WHERE id = $1`, gone); err != nil || left != 0 {
		t.Fatalf("the deleted parcel is back: %d (%v)", left, err)
	}
	if got := c.published(contract.EventUpdated, gone); len(got) != 0 {
		t.Errorf("the deleted parcel's check published %v", got)
	}
	if again := c.claim(); len(again) != 0 {
		t.Errorf("%d parcels due again right after their checks", len(again))
	}
}

// TestAnOutcomeTheDatabaseRefusesFailsAlone: when one outcome of a group
// commit cannot be stored, the others are recorded all the same and the
// refused parcel is given back, due at once.
func TestAnOutcomeTheDatabaseRefusesFailsAlone(t *testing.T) {
	c := newChecks(t)
	ctx := context.Background()
	var made []string
	for i := range 5 {
		made = append(made, c.track(number(0, 10+i), 30*time.Hour))
	}
	due := c.claim()
	if len(due) != 5 {
		t.Fatalf("claimed %d parcels, want 5", len(due))
	}
	c.clk.Advance(time.Second)
	now := c.clk.Now()
	changes := make([]domain.Change, len(due))
	bad := due[2].Parcel.ID
	for i, d := range due {
		description := "Parcel arrived at the depot"
		if d.Parcel.ID == bad {
			description = "Parcel arrived at the depot\x00" // text PostgreSQL refuses to store
		}
		tr := carrier.Tracking{Recognized: true, Events: []carrier.TrackingEvent{{Code: "ARRIVED", Status: carrier.StatusInTransit,
			Description: description, Location: "Praha", At: now.Add(-time.Hour)}}}
		changes[i] = domain.Change{ID: d.Parcel.ID, Apply: func(p *domain.Parcel) []domain.Event {
			p.Checked(tr, now, 6*time.Hour)
			return []domain.Event{contract.TrackingParcelUpdated{TrackingParcelEvent: contract.TrackingParcelEvent{
				AccountID: channel.AccountID, Version: p.Version(), OccurredAt: now, TrackingParcel: contract.TrackingParcelSnapshot{ID: p.ID()}}}}
		}}
	}
	c.handler.WriteTogether(ctx, changes)

	for _, id := range made {
		p := c.parcel(id)
		if id == bad {
			if p.Version != 1 || p.ChecksDone != 0 || p.LeaseUntil != nil || p.NextCheckAt == nil || p.NextCheckAt.After(now) || len(p.Updates) != 0 {
				t.Errorf("refused outcome: %+v", p)
			}
			if got := c.published(contract.EventUpdated, id); len(got) != 0 {
				t.Errorf("refused outcome published %v", got)
			}
			continue
		}
		if p.Status != carrier.StatusInTransit || p.Version != 2 || p.ChecksDone != 1 || p.LeaseUntil != nil || len(p.Updates) != 1 {
			t.Errorf("%s beside a refused outcome: %+v", id, p)
		}
		if got := c.published(contract.EventUpdated, id); !slices.Equal(got, []string{"v2"}) {
			t.Errorf("%s beside a refused outcome: events %v", id, got)
		}
	}
	again := c.claim()
	if len(again) != 1 || again[0].Parcel.ID != bad {
		t.Fatalf("due again after the refusal: %v, want only %s", again, bad)
	}
}

// TestChecksNeverRecordedAreMadeAgain: an instance that dies after its
// checks but before their group commit records nothing; once the lease runs
// out the parcels are claimed again and each check is recorded once, with
// its events and versions as if the first attempt had never happened. An
// outcome recorded twice (a lease that ran out under a live worker) counts
// a check but adds no status update and no event.
func TestChecksNeverRecordedAreMadeAgain(t *testing.T) {
	c := newChecks(t)
	ctx := context.Background()
	var made []string
	for i := range 4 {
		made = append(made, c.track(number(0, 20+i), 30*time.Hour))
	}
	first := c.claim()
	if len(first) != 4 {
		t.Fatalf("claimed %d parcels, want 4", len(first))
	}
	// The checks were made and the instance died before writing them.
	if again := c.claim(); len(again) != 0 {
		t.Fatalf("%d leased parcels claimed again before their lease ran out", len(again))
	}
	c.clk.Advance(lease + time.Second)
	second := c.claim()
	if len(second) != 4 {
		t.Fatalf("claimed %d parcels after the lease ran out, want 4", len(second))
	}
	if err := c.handler.CheckTogether(ctx, second); err != nil {
		t.Fatal(err)
	}
	for _, id := range made {
		p := c.parcel(id)
		if p.Status != carrier.StatusDelivered || p.Version != 2 || p.ChecksDone != 1 || p.LeaseUntil != nil {
			t.Errorf("%s after the redelivered check: %+v", id, p)
		}
		if got := c.published(contract.EventUpdated, id); !slices.Equal(got, []string{"v2"}) {
			t.Errorf("%s: updated events %v", id, got)
		}
	}
	// The first claim's worker was alive after all and records late.
	if err := c.handler.CheckTogether(ctx, first); err != nil {
		t.Fatal(err)
	}
	for _, id := range made {
		p := c.parcel(id)
		if p.Version != 2 || p.ChecksDone != 2 || len(p.Updates) != len(c.carrierCodes(p.TrackingNumber, p.CreatedAt)) {
			t.Errorf("%s after a check recorded twice: %+v", id, p)
		}
		if got := append(c.published(contract.EventUpdated, id), c.published(contract.EventStatusChanged, id)...); !slices.Equal(got, []string{"v2", "v2:created>delivered"}) {
			t.Errorf("%s: events %v after a check recorded twice", id, got)
		}
	}
}
