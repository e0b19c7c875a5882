package command

import (
	"context"
	"errors"
	"fmt"
	"time"

	channels "shipd/modules/channels/contract"
	"shipd/modules/tracking/contract"
	"shipd/modules/tracking/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/fault"
)

// ErrCheckFailed means the carrier gave no answer; the failure is recorded
// on the parcel (last_check_error) and counts as a check.
var ErrCheckFailed = errors.New("tracking check failed")

// CheckTrackingParcel asks for one check now. AccountID is empty for the
// checker worker and the client's account for a refresh.
type CheckTrackingParcel struct {
	AccountID string
	ID        string
}

// CheckTrackingParcelHandler asks the carrier about a parcel, outside any
// transaction, and records the answer in a new short one.
type CheckTrackingParcelHandler struct {
	repo      domain.Repository
	channels  channels.Channels
	providers *carrier.Registry
	clock     clock.Clock
	timeout   time.Duration // of one carrier call; the check lease outlasts it
}

// NewCheckTrackingParcelHandler returns the handler.
func NewCheckTrackingParcelHandler(repo domain.Repository, ch channels.Channels, providers *carrier.Registry, clk clock.Clock, timeout time.Duration) CheckTrackingParcelHandler {
	return CheckTrackingParcelHandler{repo: repo, channels: ch, providers: providers, clock: clk, timeout: timeout}
}

// Handle checks the parcel. New carrier events become status updates and
// may move the status (tracking_parcel.updated, .status_changed); a carrier
// that cannot be reached is a failed check, recorded with its reason, and
// returns an error wrapping ErrCheckFailed. A deleted channel stops tracking.
func (h CheckTrackingParcelHandler) Handle(ctx context.Context, cmd CheckTrackingParcel) (contract.Detail, error) {
	st, err := h.repo.GetState(ctx, cmd.ID)
	if err != nil {
		return contract.Detail{}, err
	}
	if cmd.AccountID != "" && st.AccountID != cmd.AccountID {
		return contract.Detail{}, notYours()
	}
	ch, err := h.channels.ChannelForUse(ctx, st.AccountID, st.ChannelID)
	if fault.Is(err, fault.KindNotFound) {
		return h.record(ctx, cmd.ID, func(p *domain.Parcel, now time.Time) {
			p.StopTracking(channelDeleted, now)
		}, nil)
	}
	if err != nil {
		return contract.Detail{}, err
	}
	delay := time.Duration(st.CheckDelayHours) * time.Hour
	p2, _ := h.providers.Get(ch.Provider)
	tracker, ok := p2.(carrier.Tracker)
	if !ok {
		return h.failed(ctx, cmd.ID, "provider "+ch.Provider+" cannot track parcels", delay)
	}
	if scaled, ok := p2.(carrier.TimeScaled); ok && scaled.TimeScale() > 0 {
		delay = time.Duration(float64(delay) / scaled.TimeScale())
	}
	if !ch.Active() {
		return h.failed(ctx, cmd.ID, "the shipping channel is "+ch.Status+"; checks resume once it is active", delay)
	}
	callCtx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	tr, err := tracker.Track(callCtx, carrier.Settings(ch.Settings), carrier.TrackingRequest{TrackingNumber: st.TrackingNumber, Since: st.CreatedAt})
	if err != nil {
		if ctx.Err() != nil {
			return contract.Detail{}, ctx.Err() // shutting down: the lease lets another instance check
		}
		return h.failed(ctx, cmd.ID, h.reason(err), delay)
	}
	return h.record(ctx, cmd.ID, func(p *domain.Parcel, now time.Time) { p.Checked(tr, now, delay) }, nil)
}

func (h CheckTrackingParcelHandler) failed(ctx context.Context, id, why string, delay time.Duration) (contract.Detail, error) {
	return h.record(ctx, id, func(p *domain.Parcel, now time.Time) { p.CheckFailed(why, now, delay) },
		fmt.Errorf("%w: %s", ErrCheckFailed, why))
}

// record applies a check's outcome under the row lock and publishes what changed.
func (h CheckTrackingParcelHandler) record(ctx context.Context, id string, apply func(p *domain.Parcel, now time.Time), outcome error) (contract.Detail, error) {
	now := h.clock.Now()
	p, err := h.repo.Update(ctx, id, func(p *domain.Parcel) ([]domain.Event, error) {
		version, status := p.Version(), p.Status()
		apply(p, now)
		return changeEvents(p, version, status, now), nil
	})
	if err != nil {
		return contract.Detail{}, err
	}
	return Detail(p), outcome
}

// reason is what a failed check keeps: the carrier's refusal or why it could
// not be reached.
func (h CheckTrackingParcelHandler) reason(err error) string {
	var r *carrier.Rejection
	if errors.As(err, &r) {
		return "the carrier refused: " + r.Error()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "the carrier did not answer within " + h.timeout.String()
	}
	return err.Error()
}
