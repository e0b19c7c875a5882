package command_test

import (
	"context"
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"shipd/modules/channels/app/command"
	"shipd/modules/channels/domain"
	"shipd/platform/carrier"
	"shipd/platform/fault"
)

// Each case starts from ch_1, a draft channel of acme (version 1), which
// prepare may move on; then the carrier answers as answer says.
func TestValidateChannel(t *testing.T) {
	t.Parallel()
	validated := func(t *testing.T, f *fixture) { f.validated(t, "ch_1") }
	pausedAfterValidation := func(t *testing.T, f *fixture) { f.validated(t, "ch_1"); f.paused(t, "ch_1") }
	rejected := func(t *testing.T, f *fixture) {
		f.carrier.answers(rejecting("clientId", "unknown client"))
		f.clock.Advance(time.Second)
		if err := f.validate.Handle(t.Context(), command.ValidateChannel{AccountID: acme, ID: "ch_1"}); !fault.Is(err, fault.KindValidation) {
			t.Fatalf("rejection: %v", err)
		}
	}
	cases := []struct {
		name       string
		prepare    func(*testing.T, *fixture)
		answer     func(context.Context, carrier.Settings) error
		fields     map[string][]string // the validation fault answered, nil for none
		status     domain.Status
		validation string // the validation error recorded
		validated  bool   // validated now
		events     []string
	}{
		{name: "accepted", status: domain.StatusActive, validated: true,
			events: []string{"shipping_channel.validated v2 active", "shipping_channel.status_changed v2 active from draft"}},
		{name: "accepted again", prepare: validated, status: domain.StatusActive, validated: true,
			events: []string{"shipping_channel.validated v3 active"}},
		{name: "accepted while paused stays paused", prepare: pausedAfterValidation, status: domain.StatusInactive, validated: true,
			events: []string{"shipping_channel.validated v4 inactive"}},
		{name: "accepted after a rejection", prepare: rejected, status: domain.StatusActive, validated: true,
			events: []string{"shipping_channel.validated v3 active", "shipping_channel.status_changed v3 active from error"}},
		{name: "rejected, naming a setting", answer: rejecting("clientSecret", "invalid_client"),
			fields: map[string][]string{"settings.clientSecret": {"invalid_client"}},
			status: domain.StatusError, validation: "clientSecret: invalid_client",
			events: []string{"shipping_channel.status_changed v2 error from draft"}},
		{name: "rejected for several reasons at once", answer: func(context.Context, carrier.Settings) error {
			return carrier.Rejections{{Field: "clientId", Message: "unknown client"}, {Field: "clientSecret", Message: "expired"}}
		},
			fields: map[string][]string{"settings.clientId": {"unknown client"}, "settings.clientSecret": {"expired"}},
			status: domain.StatusError, validation: "clientId: unknown client; clientSecret: expired",
			events: []string{"shipping_channel.status_changed v2 error from draft"}},
		{name: "rejected, naming no setting", answer: rejecting("", "account suspended"),
			fields: map[string][]string{"settings": {"account suspended"}},
			status: domain.StatusError, validation: "account suspended",
			events: []string{"shipping_channel.status_changed v2 error from draft"}},
		{name: "rejected again: the status stays, the reason is an update", prepare: rejected,
			answer: rejecting("clientSecret", "invalid_client"), fields: map[string][]string{"settings.clientSecret": {"invalid_client"}},
			status: domain.StatusError, validation: "clientSecret: invalid_client",
			events: []string{"shipping_channel.updated v3 error"}},
		{name: "rejected while paused stays paused", prepare: pausedAfterValidation,
			answer: rejecting("clientSecret", "invalid_client"), fields: map[string][]string{"settings.clientSecret": {"invalid_client"}},
			status: domain.StatusInactive, validation: "clientSecret: invalid_client",
			events: []string{"shipping_channel.updated v4 inactive"}},
		{name: "rejected once active", prepare: validated,
			answer: rejecting("clientSecret", "invalid_client"), fields: map[string][]string{"settings.clientSecret": {"invalid_client"}},
			status: domain.StatusError, validation: "clientSecret: invalid_client",
			events: []string{"shipping_channel.status_changed v3 error from active"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := withMain(t, tc.prepare)
			published, asked := len(f.repo.Published()), len(f.carrier.calls())
			f.carrier.answers(tc.answer)
			f.clock.Advance(time.Second)
			err := f.validate.Handle(t.Context(), command.ValidateChannel{AccountID: acme, ID: "ch_1"})
			if tc.fields == nil && err != nil {
				t.Fatal(err)
			}
			if tc.fields != nil {
				// The refusal is recorded and answered as a fault on the
				// setting the carrier blamed.
				fe := wantFields(t, err, slices.Collect(maps.Keys(tc.fields))...)
				if !reflect.DeepEqual(fe.Fields, tc.fields) || fe.Code != "validation_failed" ||
					!strings.HasPrefix(fe.Message, "The carrier rejected the channel's settings: ") {
					t.Errorf("fault %+v, want fields %v", fe, tc.fields)
				}
			}
			ch := f.channel(t, "ch_1")
			snap := ch.Snapshot()
			if ch.Status() != tc.status {
				t.Errorf("status %s, want %s", ch.Status(), tc.status)
			}
			if got := deref(snap.ValidationError); got != tc.validation {
				t.Errorf("validation error %q, want %q", got, tc.validation)
			}
			if tc.validated != (snap.ValidatedAt != nil && snap.ValidatedAt.Equal(f.clock.Now())) {
				t.Errorf("validated at %v, want validated now: %v", snap.ValidatedAt, tc.validated)
			}
			if got := f.eventsSince(published); !slices.Equal(got, tc.events) {
				t.Errorf("events %v, want %v", got, tc.events)
			}
			checkEventsShow(t, f.repo.Published()[published:], ch, f.clock.Now())
			// The carrier was asked once, with the stored settings, secrets
			// in clear, and a bounded time to answer.
			calls := f.carrier.calls()[asked:]
			if len(calls) != 1 || !maps.Equal(calls[0], carrier.Settings(goodSettings())) {
				t.Errorf("carrier asked with %v", calls)
			}
			f.carrier.mu.Lock()
			if f.carrier.keepers[len(f.carrier.keepers)-1] == nil {
				t.Error("the carrier was handed no keeper of renewed credentials")
			}
			left := f.carrier.deadlines[len(f.carrier.deadlines)-1]
			f.carrier.mu.Unlock()
			if left <= 19*time.Second || left > 20*time.Second {
				t.Errorf("the carrier had %v to answer, want 20 s", left)
			}
		})
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// A carrier that cannot be reached changes nothing: the client may try
// again.
func TestValidateChannelWithTheCarrierUnreachable(t *testing.T) {
	t.Parallel()
	for name, answer := range map[string]func(context.Context, carrier.Settings) error{
		"unavailable":            unreachable,
		"any other error":        func(context.Context, carrier.Settings) error { return errors.New("tls: handshake failure") },
		"the call's time is out": func(ctx context.Context, _ carrier.Settings) error { return context.DeadlineExceeded },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			f.created(t, "ch_1", "Main")
			before, published := f.channel(t, "ch_1").Stored(), len(f.repo.Published())
			f.carrier.answers(answer)
			f.clock.Advance(time.Second)
			err := f.validate.Handle(t.Context(), command.ValidateChannel{AccountID: acme, ID: "ch_1"})
			wantKind(t, err, fault.KindUnavailable)
			if !strings.Contains(err.Error(), "could not be reached; the channel was not changed") {
				t.Errorf("message %q", err)
			}
			if after := f.channel(t, "ch_1").Stored(); !reflect.DeepEqual(after, before) {
				t.Errorf("changed to %+v", after)
			}
			if got := f.eventsSince(published); len(got) != 0 {
				t.Errorf("published %v", got)
			}
		})
	}
}

// The carrier checked the settings as they were; if they changed while it
// did, its answer is about settings the channel no longer has.
func TestValidateChannelWhileTheSettingsChange(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		meanwhile command.UpdateChannel
		answer    error
		conflict  bool
	}{
		{"accepted, settings changed", command.UpdateChannel{Settings: map[string]any{"mode": "live"}, MergeSettings: true}, nil, true},
		{"rejected, settings changed", command.UpdateChannel{Settings: map[string]any{"mode": "live"}, MergeSettings: true},
			&carrier.Rejection{Field: "clientId", Message: "unknown"}, true},
		{"accepted, only renamed", command.UpdateChannel{Name: ptr("Renamed")}, nil, false},
		{"accepted, the masked record sent back", command.UpdateChannel{Settings: map[string]any{
			"clientId": "client-1", "clientSecret": domain.MaskedSecret, "mode": "test"}}, nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			f.created(t, "ch_1", "Main")
			f.carrier.answers(func(ctx context.Context, _ carrier.Settings) error {
				// Another request, while the carrier is being asked.
				cmd := tc.meanwhile
				cmd.AccountID, cmd.ID = acme, "ch_1"
				if err := f.update.Handle(ctx, cmd); err != nil {
					t.Errorf("update meanwhile: %v", err)
				}
				return tc.answer
			})
			f.clock.Advance(time.Second)
			err := f.validate.Handle(t.Context(), command.ValidateChannel{AccountID: acme, ID: "ch_1"})
			ch := f.channel(t, "ch_1")
			if !tc.conflict {
				if err != nil || ch.Status() != domain.StatusActive {
					t.Fatalf("error %v, status %s; want validated", err, ch.Status())
				}
				return
			}
			wantKind(t, err, fault.KindConflict)
			if fe, _ := fault.As(err); fe.Code != "channel_changed" {
				t.Errorf("code %q", fe.Code)
			}
			// The change made meanwhile stands, unvalidated; the answer
			// about the old settings is not recorded.
			if ch.Status() != domain.StatusDraft || ch.Settings()["mode"] != "live" || ch.Snapshot().ValidationError != nil {
				t.Errorf("after the conflict: %+v", ch.Stored())
			}
			if got := f.eventsSince(1); !slices.Equal(got, []string{"shipping_channel.updated v2 draft"}) {
				t.Errorf("events %v, want only the update's", got)
			}
		})
	}
}

func TestValidateChannelOfAProviderNoLongerOffered(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.created(t, "ch_1", "Main")
	f.build(carrier.NewRegistry())
	err := f.validate.Handle(t.Context(), command.ValidateChannel{AccountID: acme, ID: "ch_1"})
	fe := wantFields(t, err, "provider")
	if !strings.Contains(fe.Fields["provider"][0], "no longer offered") {
		t.Errorf("provider: %v", fe.Fields["provider"])
	}
	if ch := f.channel(t, "ch_1"); ch.Status() != domain.StatusDraft || ch.Version() != 1 {
		t.Errorf("changed: %+v", ch.Stored())
	}
}

// A repository that fails is the answer, before the carrier is asked or
// instead of the carrier's verdict, which was then not recorded.
func TestValidateChannelPassesOnTheRepositorysFailure(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		op     string
		answer func(context.Context, carrier.Settings) error
		asked  int
	}{
		{"loading", "Get", nil, 0},
		{"recording an acceptance", "Update", nil, 1},
		{"recording a rejection", "Update", rejecting("clientSecret", "invalid_client"), 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			f.created(t, "ch_1", "Main")
			f.carrier.answers(tc.answer)
			f.repo.Interfere(func(op, _ string) error {
				if op == tc.op {
					return errDatabase
				}
				return nil
			})
			err := f.validate.Handle(t.Context(), command.ValidateChannel{AccountID: acme, ID: "ch_1"})
			if !errors.Is(err, errDatabase) {
				t.Fatalf("error %v, want the repository's", err)
			}
			if n := len(f.carrier.calls()); n != tc.asked {
				t.Errorf("carrier asked %d times, want %d", n, tc.asked)
			}
		})
	}
}
