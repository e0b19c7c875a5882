package command

import (
	"context"
	"errors"
	"fmt"
	"time"

	channels "shipd/modules/channels/contract"
	"shipd/modules/tracking/domain"
	"shipd/platform/carrier"
	"shipd/platform/clock"
	"shipd/platform/fault"
	"shipd/platform/usecase"
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
	repo     domain.Repository
	channels channels.Channels
	checker  checker
}

// NewCheckTrackingParcelHandler needs the parcel's channel (through the
// channels facade), its carrier and the time one carrier call may take.
func NewCheckTrackingParcelHandler(repo domain.Repository, ch channels.Channels, providers *carrier.Registry, clk clock.Clock, timeout time.Duration, obs usecase.Observer) usecase.CommandHandler[CheckTrackingParcel] {
	return usecase.Command(CheckTrackingParcelHandler{repo: repo, channels: ch, checker: newChecker(providers, clk, timeout)}, obs)
}

// Handle checks the parcel. New carrier events become status updates and
// may move the status (tracking_parcel.updated, .status_changed); a carrier
// that cannot be reached is a failed check, recorded with its reason, and
// returns an error wrapping ErrCheckFailed and a fault.Unavailable that
// says why. A deleted channel stops tracking.
func (h CheckTrackingParcelHandler) Handle(ctx context.Context, cmd CheckTrackingParcel) error {
	st, err := h.repo.GetStored(ctx, cmd.ID)
	if err != nil {
		return err
	}
	if cmd.AccountID != "" && st.AccountID != cmd.AccountID {
		return notYours()
	}
	ch, chErr := h.channels.ChannelForUse(ctx, st.AccountID, st.ChannelID)
	found, err := h.checker.check(ctx, st, ch, chErr)
	if err != nil {
		return err
	}
	change := found.change(cmd.ID, h.checker.clock.Now())
	if _, err := h.repo.Update(ctx, cmd.ID, func(p *domain.Parcel) ([]domain.Event, error) { return change.Apply(p), nil }); err != nil {
		return err
	}
	return found.failed
}

// checker asks the carrier and says what a check changes; a refresh and the
// scheduled checks record its answer each their own way.
type checker struct {
	providers *carrier.Registry
	clock     clock.Clock
	timeout   time.Duration // of one carrier call; the check lease outlasts it
}

// newChecker refuses missing dependencies itself: the handlers that hold a
// checker keep it as a value, which usecase.Command cannot look into.
func newChecker(providers *carrier.Registry, clk clock.Clock, timeout time.Duration) checker {
	if providers == nil || clk == nil {
		panic("tracking: a checker needs the carrier registry and a clock")
	}
	return checker{providers: providers, clock: clk, timeout: timeout}
}

// outcome is what a check found.
type outcome struct {
	// apply changes a parcel as the check found it at now and names the
	// events of the change.
	apply func(p *domain.Parcel, now time.Time) []domain.Event
	// failed, when not nil, wraps ErrCheckFailed and a fault.Unavailable
	// that says why the carrier gave no answer (apply records that too).
	failed error
}

// change records the outcome on parcel id, as of now.
func (o outcome) change(id string, now time.Time) domain.Change {
	return domain.Change{ID: id, Apply: func(p *domain.Parcel) []domain.Event { return o.apply(p, now) }}
}

// check asks the carrier about the parcel st through its channel (ch, or
// chErr as the channels facade answered). An error means nothing is to be
// recorded: the facade failed, or ctx ended during the call (shutting down:
// the lease lets another instance check).
func (c checker) check(ctx context.Context, st domain.Stored, ch channels.ChannelAccess, chErr error) (outcome, error) {
	if fault.Is(chErr, fault.KindNotFound) {
		return changeBy(func(p *domain.Parcel, now time.Time) {
			p.StopTracking(channelDeleted, now)
		}), nil
	}
	if chErr != nil {
		return outcome{}, chErr
	}
	delay := time.Duration(st.CheckDelayHours) * time.Hour
	p2, _ := c.providers.Get(ch.Provider)
	tracker, ok := p2.(carrier.Tracker)
	if !ok {
		return c.failed("provider "+ch.Provider+" cannot track parcels", delay)
	}
	if scaled, ok := p2.(carrier.TimeScaled); ok && scaled.TimeScale() > 0 {
		delay = time.Duration(float64(delay) / scaled.TimeScale())
	}
	if !ch.Active() {
		return c.failed("the shipping channel is "+ch.Status+"; checks resume once it is active", delay)
	}
	callCtx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	tr, err := tracker.Track(callCtx, carrier.Settings(ch.Settings), carrier.TrackingRequest{TrackingNumber: st.TrackingNumber, Since: st.CreatedAt})
	if err != nil {
		if ctx.Err() != nil {
			return outcome{}, ctx.Err()
		}
		return c.failed(c.reason(err), delay)
	}
	return changeBy(func(p *domain.Parcel, now time.Time) { p.Checked(tr, now, delay) }), nil
}

func (c checker) failed(why string, delay time.Duration) (outcome, error) {
	o := changeBy(func(p *domain.Parcel, now time.Time) { p.CheckFailed(why, now, delay) })
	o.failed = fmt.Errorf("%w: %w", ErrCheckFailed, fault.Unavailable("The carrier could not be asked about this parcel: "+why))
	return o, nil
}

// changeBy is the outcome that makes change and publishes what it changed.
func changeBy(change func(p *domain.Parcel, now time.Time)) outcome {
	return outcome{apply: func(p *domain.Parcel, now time.Time) []domain.Event {
		version, status := p.Version(), p.Status()
		change(p, now)
		return changeEvents(p, version, status, now)
	}}
}

// reason is what a failed check keeps: the carrier's refusal or why it could
// not be reached.
func (c checker) reason(err error) string {
	var r *carrier.Rejection
	if errors.As(err, &r) {
		return "the carrier refused: " + r.Error()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "the carrier did not answer within " + c.timeout.String()
	}
	return err.Error()
}
