package memory_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"shipd/modules/tracking/adapters/memory"
	"shipd/modules/tracking/contract"
	"shipd/modules/tracking/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/fault"
)

// The app-layer tests rely on the in-memory repository and queue keeping
// the PostgreSQL ones' contract; these are the points of it they do not
// exercise themselves.

var t0 = time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)

func add(t *testing.T, repo *memory.Repository, id, number string) {
	t.Helper()
	if err := repo.Add(t.Context(), parcel(t, id, number)); err != nil {
		t.Fatal(err)
	}
}

// parcel is a parcel of acc_1 tracked through ch_1, under id, as the
// create use case makes it.
func parcel(t *testing.T, id, number string) *domain.Parcel {
	t.Helper()
	hours, checks := 6, 20
	p, err := domain.New(id, "acc_1", "fake", domain.Request{TrackingNumber: number, ChannelID: "ch_1", CheckDelayHours: &hours, MaxChecks: &checks}, t0)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var hub = carrier.TrackingEvent{Code: "HUB", Status: carrier.StatusInTransit, At: t0.Add(time.Hour)}

// A check is saved whether or not it names events (a failed check does
// not), a carrier event is kept once however often it is reported, and the
// saved parcel's lease is released.
func TestUpdateSavesEveryCheckAndEachEventOnce(t *testing.T) {
	t.Parallel()
	repo := memory.NewRepository()
	clk := clock.NewManual(t0)
	queue := memory.NewCheckQueue(repo, clk)
	add(t, repo, "tp_1", "TN1")
	if claimed, err := queue.Claim(t.Context(), 10, time.Minute); err != nil || len(claimed) != 1 || !queue.Leased("tp_1") {
		t.Fatalf("claimed %d (%v)", len(claimed), err)
	}
	for range 2 {
		if _, err := repo.Update(t.Context(), "tp_1", func(p *domain.Parcel) ([]domain.Event, error) {
			p.Checked(carrier.Tracking{Recognized: true, Events: []carrier.TrackingEvent{hub}}, t0, time.Hour)
			return nil, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	p, err := repo.Get(t.Context(), "tp_1")
	if err != nil {
		t.Fatal(err)
	}
	if st := p.Stored(); st.ChecksDone != 2 || len(p.Updates()) != 1 || queue.Leased("tp_1") {
		t.Errorf("checks %d, updates %d, leased %v", st.ChecksDone, len(p.Updates()), queue.Leased("tp_1"))
	}
	refuse := errors.New("refused")
	if _, err := repo.Update(t.Context(), "tp_1", func(p *domain.Parcel) ([]domain.Event, error) {
		p.Touch(t0)
		return nil, refuse
	}); !errors.Is(err, refuse) {
		t.Fatalf("error %v", err)
	}
	if st, _ := repo.GetStored(t.Context(), "tp_1"); st.Version != 2 {
		t.Errorf("version %d after a refused change", st.Version)
	}
}

// UpdateAll skips parcels gone, applies changes in order, and keeps none of
// a batch that cannot be saved.
func TestUpdateAll(t *testing.T) {
	t.Parallel()
	repo := memory.NewRepository()
	add(t, repo, "tp_1", "TN1")
	add(t, repo, "tp_2", "TN2")
	var order []string
	change := func(id string) domain.Change {
		return domain.Change{ID: id, Apply: func(p *domain.Parcel) []domain.Event {
			order = append(order, id)
			p.Touch(t0)
			return []domain.Event{contract.TrackingParcelUpdated{}}
		}}
	}
	if err := repo.UpdateAll(t.Context(), []domain.Change{change("tp_2"), change("tp_gone"), change("tp_1")}); err != nil {
		t.Fatal(err)
	}
	if len(order) != 2 || order[0] != "tp_2" || order[1] != "tp_1" || len(repo.Published()) != 2 {
		t.Errorf("applied %v, published %d", order, len(repo.Published()))
	}
	unsavable := domain.Change{ID: "tp_2", Apply: func(p *domain.Parcel) []domain.Event {
		p.Edit(nil, nil, nil, map[string]any{"bad": func() {}}, t0) // no JSON for a func
		return nil
	}}
	if err := repo.UpdateAll(t.Context(), []domain.Change{change("tp_1"), unsavable}); err == nil {
		t.Fatal("a state that cannot be stored was saved")
	}
	if st, _ := repo.GetStored(t.Context(), "tp_1"); st.Version != 2 {
		t.Errorf("tp_1 at version %d: part of a failed batch was kept", st.Version)
	}
}

// A number is tracked once per account and channel until its parcel is
// deleted; a missing parcel is fault.NotFound.
func TestNumbersAndMissingParcels(t *testing.T) {
	t.Parallel()
	repo := memory.NewRepository()
	ctx := t.Context()
	add(t, repo, "tp_1", "TN1")
	dup := parcel(t, "tp_2", "TN1")
	if err := repo.Add(ctx, dup); !fault.Is(err, fault.KindValidation) {
		t.Errorf("a number tracked twice: %v", err)
	}
	keep := func(*domain.Parcel) ([]domain.Event, error) { return nil, nil }
	if err := repo.Delete(ctx, "tp_1", keep); err != nil {
		t.Fatal(err)
	}
	if err := repo.Add(ctx, dup); err != nil {
		t.Errorf("the number of a deleted parcel: %v", err)
	}
	for name, err := range map[string]error{
		"Get":       func() error { _, err := repo.Get(ctx, "tp_1"); return err }(),
		"GetStored": func() error { _, err := repo.GetStored(ctx, "tp_1"); return err }(),
		"Update":    func() error { _, err := repo.Update(ctx, "tp_1", keep); return err }(),
		"Delete":    repo.Delete(ctx, "tp_1", keep),
	} {
		if !fault.Is(err, fault.KindNotFound) {
			t.Errorf("%s of a missing parcel: %v", name, err)
		}
	}
	repo.Interfere(func(string, []string) error { return context.Canceled })
	if _, err := repo.TrackedThrough(ctx, "acc_1", "ch_1"); !errors.Is(err, context.Canceled) {
		t.Errorf("interfered TrackedThrough: %v", err)
	}
}
