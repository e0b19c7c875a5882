package carrier

import (
	"context"
	"errors"
	"time"

	"shipd/platform/txguard"
)

// Call outcomes an Observer is told.
const (
	OutcomeOK          = "ok"
	OutcomeRejected    = "rejected"    // the carrier said no (*Rejection)
	OutcomeUnavailable = "unavailable" // no usable answer (ErrUnavailable)
	OutcomeError       = "error"       // anything else
)

// Observer is told of every call a provider made: which provider, which
// operation of the port, how long it took and how it ended.
type Observer func(provider, operation string, took time.Duration, outcome string)

// Outcome sorts a call's error into one of the outcomes.
func Outcome(err error) string {
	switch {
	case err == nil:
		return OutcomeOK
	case isRejection(err):
		return OutcomeRejected
	case errors.Is(err, ErrUnavailable):
		return OutcomeUnavailable
	default:
		return OutcomeError
	}
}

func isRejection(err error) bool {
	var one *Rejection
	var several Rejections
	return errors.As(err, &one) || errors.As(err, &several)
}

// Observe returns p with every call of the port told to observe, and
// refused while a database transaction is open in its context (txguard, ADR
// 0001): the composition root wraps every provider, the sandbox too, so a
// handler that writes and then calls a carrier under an Idempotency-Key's
// scope fails in every test that takes that path. The result
// implements Shipper, BookingFinder and Tracker exactly when p does, because the modules ask
// a provider what it can do by type assertion.
func Observe(p Provider, observe Observer) Provider {
	base := &observedProvider{p: p, code: p.Info().Code, observe: observe}
	shipper, ships := p.(Shipper)
	tracker, tracks := p.(Tracker)
	finder, finds := p.(BookingFinder)
	switch {
	case ships && finds && tracks:
		return struct {
			*observedProvider
			*observedFinder
			*observedTracker
		}{base, &observedFinder{&observedShipper{base, shipper}, finder}, &observedTracker{base, tracker}}
	case ships && finds:
		return struct {
			*observedProvider
			*observedFinder
		}{base, &observedFinder{&observedShipper{base, shipper}, finder}}
	case ships && tracks:
		return struct {
			*observedProvider
			*observedShipper
			*observedTracker
		}{base, &observedShipper{base, shipper}, &observedTracker{base, tracker}}
	case ships:
		return struct {
			*observedProvider
			*observedShipper
		}{base, &observedShipper{base, shipper}}
	case tracks:
		return struct {
			*observedProvider
			*observedTracker
		}{base, &observedTracker{base, tracker}}
	}
	return base
}

type observedProvider struct {
	p       Provider
	code    string
	observe Observer
}

func (o *observedProvider) Info() ProviderInfo { return o.p.Info() }

func (o *observedProvider) ValidateCredentials(ctx context.Context, settings Settings) error {
	start := time.Now()
	if err := o.outside(ctx, "validate_credentials"); err != nil {
		return o.done("validate_credentials", start, err)
	}
	return o.done("validate_credentials", start, o.p.ValidateCredentials(ctx, settings))
}

// outside refuses a call of operation made inside an open transaction.
func (o *observedProvider) outside(ctx context.Context, operation string) error {
	return txguard.Check(ctx, "carrier "+o.code+" "+operation)
}

// TimeScale passes the sandbox's clock speed through; 0 for real carriers
// (the tracking module ignores a scale of 0).
func (o *observedProvider) TimeScale() float64 {
	if s, ok := o.p.(TimeScaled); ok {
		return s.TimeScale()
	}
	return 0
}

// done tells the observer of a call that started at start and returns err.
func (o *observedProvider) done(operation string, start time.Time, err error) error {
	o.observe(o.code, operation, time.Since(start), Outcome(err))
	return err
}

type observedShipper struct {
	*observedProvider
	s Shipper
}

func (o *observedShipper) CreateShipment(ctx context.Context, settings Settings, req ShipmentRequest) (CreatedShipment, error) {
	start := time.Now()
	if err := o.outside(ctx, "create_shipment"); err != nil {
		return CreatedShipment{}, o.done("create_shipment", start, err)
	}
	created, err := o.s.CreateShipment(ctx, settings, req)
	return created, o.done("create_shipment", start, err)
}

func (o *observedShipper) Labels(ctx context.Context, settings Settings, ref ShipmentRef, format string) ([]Label, error) {
	start := time.Now()
	if err := o.outside(ctx, "labels"); err != nil {
		return nil, o.done("labels", start, err)
	}
	labels, err := o.s.Labels(ctx, settings, ref, format)
	return labels, o.done("labels", start, err)
}

func (o *observedShipper) CancelShipment(ctx context.Context, settings Settings, ref ShipmentRef) error {
	start := time.Now()
	if err := o.outside(ctx, "cancel_shipment"); err != nil {
		return o.done("cancel_shipment", start, err)
	}
	return o.done("cancel_shipment", start, o.s.CancelShipment(ctx, settings, ref))
}

// observedFinder is a Shipper that can be asked for a booking by its key.
type observedFinder struct {
	*observedShipper
	f BookingFinder
}

func (o *observedFinder) FindBooking(ctx context.Context, settings Settings, req ShipmentRequest) (string, bool, error) {
	start := time.Now()
	if err := o.outside(ctx, "find_booking"); err != nil {
		return "", false, o.done("find_booking", start, err)
	}
	handle, found, err := o.f.FindBooking(ctx, settings, req)
	return handle, found, o.done("find_booking", start, err)
}

type observedTracker struct {
	*observedProvider
	t Tracker
}

func (o *observedTracker) Track(ctx context.Context, settings Settings, req TrackingRequest) (Tracking, error) {
	start := time.Now()
	if err := o.outside(ctx, "track"); err != nil {
		return Tracking{}, o.done("track", start, err)
	}
	tracking, err := o.t.Track(ctx, settings, req)
	return tracking, o.done("track", start, err)
}

// dispatcher is the observed provider's pickups and manifests (DispatcherOf):
// a method of the wrapper, not a case of Observe's, so that the dispatch
// part doubles none of its combinations.
func (o *observedProvider) dispatcher() (Dispatcher, bool) {
	d, ok := o.p.(Dispatcher)
	if !ok {
		return nil, false
	}
	return &observedDispatcher{o, d}, true
}

type observedDispatcher struct {
	*observedProvider
	d Dispatcher
}

func (o *observedDispatcher) OrderCourierPickup(ctx context.Context, settings Settings, req CourierPickupRequest) (CourierPickup, error) {
	start := time.Now()
	if err := o.outside(ctx, "order_pickup"); err != nil {
		return CourierPickup{}, o.done("order_pickup", start, err)
	}
	p, err := o.d.OrderCourierPickup(ctx, settings, req)
	return p, o.done("order_pickup", start, err)
}

func (o *observedDispatcher) CancelCourierPickup(ctx context.Context, settings Settings, pickup CourierPickup) error {
	start := time.Now()
	if err := o.outside(ctx, "cancel_pickup"); err != nil {
		return o.done("cancel_pickup", start, err)
	}
	return o.done("cancel_pickup", start, o.d.CancelCourierPickup(ctx, settings, pickup))
}

func (o *observedDispatcher) CourierPickupWindows(ctx context.Context, settings Settings, req PickupWindowsRequest) ([]PickupWindow, error) {
	start := time.Now()
	if err := o.outside(ctx, "pickup_windows"); err != nil {
		return nil, o.done("pickup_windows", start, err)
	}
	w, err := o.d.CourierPickupWindows(ctx, settings, req)
	return w, o.done("pickup_windows", start, err)
}

func (o *observedDispatcher) CreateManifest(ctx context.Context, settings Settings, req ManifestRequest) (CarrierManifest, error) {
	start := time.Now()
	if err := o.outside(ctx, "create_manifest"); err != nil {
		return CarrierManifest{}, o.done("create_manifest", start, err)
	}
	m, err := o.d.CreateManifest(ctx, settings, req)
	return m, o.done("create_manifest", start, err)
}
