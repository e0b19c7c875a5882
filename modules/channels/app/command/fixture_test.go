package command_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"shipd/modules/channels/adapters/memory"
	"shipd/modules/channels/app/command"
	"shipd/modules/channels/contract"
	"shipd/modules/channels/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/fault"
	"shipd/platform/usecase"
	"shipd/platform/usecase/usecasetest"
)

// The channel commands run here as the service runs them (decorated, on the
// ports they are given), on the in-memory repository and a carrier whose
// answers each test sets: no database, no HTTP.

var t0 = time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)

const (
	acme   = "acc_acme"
	globex = "acc_globex"
	code   = "test"
	secret = "s3cret"
)

// testCarrier is a provider of the carrier port whose validation answer the
// test chooses; it remembers the settings and deadlines it was asked with.
type testCarrier struct {
	mu        sync.Mutex
	answer    func(ctx context.Context, s carrier.Settings) error
	asked     []carrier.Settings
	keepers   []carrier.CredentialKeeper // handed with each call's settings
	deadlines []time.Duration            // time left on each call's context
}

// Info has a required secret, an optional one, an enum and an integer, so
// every kind of settings check and masking can be exercised.
func (c *testCarrier) Info() carrier.ProviderInfo {
	return carrier.ProviderInfo{Code: code, Name: "Test carrier", Settings: []carrier.Setting{
		{Key: "clientId", Type: carrier.TypeString, Required: true},
		{Key: "clientSecret", Type: carrier.TypeString, Required: true, Secret: true},
		{Key: "apiToken", Type: carrier.TypeString, Secret: true},
		{Key: "mode", Type: carrier.TypeString, Enum: []string{"test", "live"}},
		{Key: "retries", Type: carrier.TypeInteger},
	}}
}

func (c *testCarrier) ValidateCredentials(ctx context.Context, s carrier.Settings) error {
	c.mu.Lock()
	// The settings as stored; the keeper handed with them is noted apart.
	plain := maps.Clone(s)
	maps.DeleteFunc(plain, func(_ string, v any) bool { _, keeper := v.(carrier.CredentialKeeper); return keeper })
	c.asked = append(c.asked, plain)
	c.keepers = append(c.keepers, s.Keeper())
	if d, ok := ctx.Deadline(); ok {
		c.deadlines = append(c.deadlines, time.Until(d))
	} else {
		c.deadlines = append(c.deadlines, 0)
	}
	answer := c.answer
	c.mu.Unlock()
	if answer == nil {
		return nil
	}
	return answer(ctx, s)
}

// answers makes every later validation answer f.
func (c *testCarrier) answers(f func(ctx context.Context, s carrier.Settings) error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.answer = f
}

func (c *testCarrier) calls() []carrier.Settings {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.asked)
}

// rejecting answers a rejection; unreachable an error as a carrier that
// did not answer gives.
func rejecting(field, message string) func(context.Context, carrier.Settings) error {
	return func(context.Context, carrier.Settings) error {
		return &carrier.Rejection{Field: field, Message: message}
	}
}

func unreachable(context.Context, carrier.Settings) error {
	return fmt.Errorf("%w: 503 from the login endpoint", carrier.ErrUnavailable)
}

type fixture struct {
	repo     *memory.Repository
	carrier  *testCarrier
	clock    *clock.Manual
	create   usecase.CommandHandler[command.CreateChannel]
	update   usecase.CommandHandler[command.UpdateChannel]
	delete   usecase.CommandHandler[command.DeleteChannel]
	validate usecase.CommandHandler[command.ValidateChannel]
	renew    usecase.CommandHandler[command.RenewCredential]
}

func newFixture() *fixture {
	f := &fixture{repo: memory.NewRepository(), carrier: &testCarrier{}, clock: clock.NewManual(t0)}
	f.build(carrier.NewRegistry(f.carrier))
	return f
}

// build (re)makes the handlers over the fixture's repository and clock with
// the providers of reg.
func (f *fixture) build(reg *carrier.Registry) {
	obs := usecasetest.Observer()
	f.create = command.NewCreateChannelHandler(f.repo, reg, f.clock, obs)
	f.update = command.NewUpdateChannelHandler(f.repo, reg, f.clock, obs)
	f.delete = command.NewDeleteChannelHandler(f.repo, f.clock, obs)
	f.validate = command.NewValidateChannelHandler(f.repo, reg, f.clock, obs)
	f.renew = command.NewRenewCredentialHandler(f.repo, obs)
}

func goodSettings() map[string]any {
	return map[string]any{"clientId": "client-1", "clientSecret": secret, "mode": "test"}
}

// created makes the draft channel id of acme named name, a second after the
// clock's current time (so each change is at a time of its own).
func (f *fixture) created(t *testing.T, id, name string) {
	t.Helper()
	f.clock.Advance(time.Second)
	if err := f.create.Handle(t.Context(), command.CreateChannel{AccountID: acme, ChannelID: id, Name: name,
		Provider: code, Settings: goodSettings()}); err != nil {
		t.Fatalf("creating %s: %v", id, err)
	}
}

// withMain is a fixture holding channel ch_1 "Main" of acme, which
// prepare, when given, moves on: where the tables of a command's cases
// start.
func withMain(t *testing.T, prepare func(*testing.T, *fixture)) *fixture {
	t.Helper()
	f := newFixture()
	f.created(t, "ch_1", "Main")
	if prepare != nil {
		prepare(t, f)
	}
	return f
}

// validated validates id with the carrier accepting, leaving the carrier
// accepting.
func (f *fixture) validated(t *testing.T, id string) {
	t.Helper()
	f.clock.Advance(time.Second)
	f.carrier.answers(nil)
	if err := f.validate.Handle(t.Context(), command.ValidateChannel{AccountID: acme, ID: id}); err != nil {
		t.Fatalf("validating %s: %v", id, err)
	}
}

// paused sets id inactive.
func (f *fixture) paused(t *testing.T, id string) {
	t.Helper()
	f.clock.Advance(time.Second)
	if err := f.update.Handle(t.Context(), command.UpdateChannel{AccountID: acme, ID: id, Status: ptr("inactive")}); err != nil {
		t.Fatalf("pausing %s: %v", id, err)
	}
}

func (f *fixture) channel(t *testing.T, id string) *domain.Channel {
	t.Helper()
	ch, err := f.repo.Get(t.Context(), id)
	if err != nil {
		t.Fatalf("loading %s: %v", id, err)
	}
	return ch
}

// eventsSince summarises the events published after the first n.
func (f *fixture) eventsSince(n int) []string {
	var out []string
	for _, e := range f.repo.Published()[n:] {
		out = append(out, summary(e))
	}
	return out
}

// summary is an event's type, version, the status its snapshot shows and,
// for a status change, the status before: "shipping_channel.status_changed
// v2 active from draft".
func summary(e domain.Event) string {
	ev := e.(interface{ Channel() contract.ChannelEvent }).Channel()
	s := fmt.Sprintf("%s v%d %s", e.EventType(), ev.Version, ev.ShippingChannel.Status)
	if sc, ok := e.(contract.ShippingChannelStatusChanged); ok {
		s += " from " + sc.PreviousStatus
	}
	return s
}

// wantFields checks that err is a validation fault naming exactly fields.
func wantFields(t *testing.T, err error, fields ...string) *fault.Error {
	t.Helper()
	fe, ok := fault.As(err)
	if !ok || fe.Kind != fault.KindValidation {
		t.Fatalf("error %v, want a validation fault on %v", err, fields)
	}
	got := slices.Sorted(maps.Keys(fe.Fields))
	if want := slices.Sorted(slices.Values(fields)); !slices.Equal(got, want) {
		t.Fatalf("fault on %v, want %v: %v", got, want, err)
	}
	return fe
}

func wantKind(t *testing.T, err error, kind fault.Kind) {
	t.Helper()
	if !fault.Is(err, kind) {
		t.Fatalf("error %v, want a fault of kind %d", err, kind)
	}
}

func ptr[T any](v T) *T { return &v }

var errDatabase = errors.New("connection reset by peer")
