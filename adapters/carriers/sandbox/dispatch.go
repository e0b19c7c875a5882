package sandbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"
	"time"

	"shipd/platform/carrier"
)

// Courier pickups. The sandbox collects on weekdays in two windows, 09:00
// to 12:00 (order by 08:00 that day) and 12:00 to 17:00 (order by 11:00),
// on Saturdays 09:00 to 12:00 (order by 08:00), never on Sundays; it
// refuses a window that is not inside one of them, or that day's order-by
// time if it has passed on the sandbox clock (UTC). It confirms the window
// asked for, under a number derived from shipd's key of the order
// (SBC-yyyymmdd-xxxxxxxx), and an order made again under the same key is
// the first one answered again, never a second. A pickup can be cancelled
// until its window starts; a second cancel answers that it is cancelled
// already. With a journal (SANDBOX_JOURNAL) orders and cancels are kept
// there too, before they are answered, so an order made again after a
// restart, or through another process sharing the file, is answered from
// the journal; within one process that is exact, while two processes asked
// for one key at the same instant could both order it (the file has no
// lock; shipd never asks twice at once). It has no manifest of its own:
// shipd draws its handover document.
//
// Trigger values:
//
//   - pickup address postal code "99999": not served; refused on address.postal_code.
//   - note starting "REFUSE": the carrier refuses the order (no field).
//   - note starting "NO-CANCEL": the pickup is ordered, but its cancel is refused.
//   - note starting "HANG": the order blocks until its context ends, then fails as unavailable.
//   - clientSecret "unavailable" / "invalid": every call, as for bookings.

// Trigger prefixes of a pickup's note.
const (
	NoteRefuse   = "REFUSE"
	NoteNoCancel = "NO-CANCEL"
	NoteHang     = "HANG"
)

// pickupOrder is an order the sandbox holds.
type pickupOrder struct {
	key       string
	pickup    carrier.CourierPickup
	start     time.Time // the window's start, UTC
	noCancel  bool
	cancelled bool
}

// pickupBook is the sandbox's orders, by shipd's key and by number.
type pickupBook struct {
	mu       sync.Mutex
	byKey    map[string]*pickupOrder
	byNumber map[string]*pickupOrder
	orders   int   // orders this value made (a repeat of a key is not one)
	read     int64 // how far the journal was read into the book
}

// add keeps o, unless an order of its key is kept already.
func (b *pickupBook) add(o *pickupOrder) {
	if _, ok := b.byKey[o.key]; ok && o.key != "" {
		return
	}
	b.byKey[o.key] = o
	b.byNumber[o.pickup.ConfirmationNumber] = o
}

var _ carrier.Dispatcher = (*Carrier)(nil)

// sandboxWindow is a window of the sandbox's day and its order-by time.
type sandboxWindow struct {
	from, until, orderBy string
}

var (
	weekdayWindows  = []sandboxWindow{{"09:00", "12:00", "08:00"}, {"12:00", "17:00", "11:00"}}
	saturdayWindows = []sandboxWindow{{"09:00", "12:00", "08:00"}}
)

func windowsOn(date time.Time) []sandboxWindow {
	switch date.Weekday() {
	case time.Sunday:
		return nil
	case time.Saturday:
		return saturdayWindows
	}
	return weekdayWindows
}

// dispatchInfo is what the sandbox offers of pickups and manifests.
func dispatchInfo() carrier.DispatchInfo {
	return carrier.DispatchInfo{Pickups: true, PickupCancel: true, PickupAvailability: carrier.AvailabilityCarrier,
		PickupShipments: carrier.PickupShipmentsOrCount, Manifest: carrier.ManifestByShipd,
		CancelAfterManifest: carrier.CancelAfterManifestCarrier}
}

// CourierPickupWindows answers the windows of the date.
func (c *Carrier) CourierPickupWindows(ctx context.Context, s carrier.Settings, req carrier.PickupWindowsRequest) ([]carrier.PickupWindow, error) {
	if err := reachable(ctx, s); err != nil {
		return nil, err
	}
	date, err := time.Parse("2006-01-02", req.Date)
	if err != nil {
		return nil, carrier.Reject(carrier.PickupFieldDate, "must be a date YYYY-MM-DD")
	}
	out := []carrier.PickupWindow{}
	for _, w := range windowsOn(date) {
		out = append(out, carrier.PickupWindow{From: w.from, Until: w.until, OrderBy: w.orderBy})
	}
	return out, nil
}

// OrderCourierPickup orders a pickup, or answers the order made under the
// same key again.
func (c *Carrier) OrderCourierPickup(ctx context.Context, s carrier.Settings, req carrier.CourierPickupRequest) (carrier.CourierPickup, error) {
	if err := reachable(ctx, s); err != nil {
		return carrier.CourierPickup{}, err
	}
	book := c.pickupBook()
	if p, ok, err := c.orderedBefore(book, req.Booking.Key); err != nil || ok {
		return p, err
	}
	if strings.HasPrefix(req.Note, NoteHang) {
		<-ctx.Done()
		return carrier.CourierPickup{}, unavailable("sandbox carrier did not answer the pickup order: %v", ctx.Err())
	}
	start, err := c.checkPickup(req)
	if err != nil {
		return carrier.CourierPickup{}, err
	}
	sum := sha256.Sum256([]byte(req.Booking.Key))
	p := carrier.CourierPickup{ConfirmationNumber: "SBC-" + strings.ReplaceAll(req.Date, "-", "") + "-" + strings.ToUpper(hex.EncodeToString(sum[:4])),
		Date: req.Date, ReadyFrom: req.ReadyFrom, ReadyUntil: req.ReadyUntil}
	book.mu.Lock()
	defer book.mu.Unlock()
	if err := c.catchUp(book); err != nil {
		return carrier.CourierPickup{}, err
	}
	if o, ok := book.byKey[req.Booking.Key]; ok && req.Booking.Key != "" {
		return o.pickup, nil // a second attempt raced the first
	}
	o := &pickupOrder{key: req.Booking.Key, pickup: p, start: start, noCancel: strings.HasPrefix(req.Note, NoteNoCancel)}
	// Journaled before it is answered, as a carrier's database commits
	// before its API answers.
	if err := c.journal(journalEntry{Pickup: &pickupRecord{Key: o.key, ConfirmationNumber: p.ConfirmationNumber, Date: p.Date,
		ReadyFrom: p.ReadyFrom, ReadyUntil: p.ReadyUntil, Start: start, NoCancel: o.noCancel}}); err != nil {
		return carrier.CourierPickup{}, err
	}
	book.add(o)
	book.orders++
	return p, nil
}

// orderedBefore answers the order made under key before, by this value or,
// through the journal, by another process or this one before a restart.
func (c *Carrier) orderedBefore(book *pickupBook, key string) (carrier.CourierPickup, bool, error) {
	if key == "" {
		return carrier.CourierPickup{}, false, nil
	}
	book.mu.Lock()
	defer book.mu.Unlock()
	if err := c.catchUp(book); err != nil {
		return carrier.CourierPickup{}, false, err
	}
	o, ok := book.byKey[key]
	if !ok {
		return carrier.CourierPickup{}, false, nil
	}
	return o.pickup, true, nil
}

// catchUp reads into book the pickup orders and cancels the journal holds
// beyond what it read before: those of other processes sharing it, and of
// this one before a restart. Under book.mu.
func (c *Carrier) catchUp(book *pickupBook) error {
	if c.config.Journal == "" {
		return nil
	}
	entries, read, err := readJournalFrom(c.config.Journal, book.read)
	if err != nil {
		return unavailable("%v", err)
	}
	book.read = read
	for _, e := range entries {
		switch {
		case e.Pickup != nil:
			r := e.Pickup
			book.add(&pickupOrder{key: r.Key, start: r.Start, noCancel: r.NoCancel, pickup: carrier.CourierPickup{
				ConfirmationNumber: r.ConfirmationNumber, Date: r.Date, ReadyFrom: r.ReadyFrom, ReadyUntil: r.ReadyUntil}})
		case e.PickupCancelled != "":
			if o, ok := book.byNumber[e.PickupCancelled]; ok {
				o.cancelled = true
			}
		}
	}
	return nil
}

// checkPickup refuses what the sandbox does not collect, and answers the
// window's start.
func (c *Carrier) checkPickup(req carrier.CourierPickupRequest) (time.Time, error) {
	var problems []*carrier.Rejection
	if strings.TrimSpace(req.Address.PostalCode) == "99999" {
		problems = append(problems, carrier.Reject(carrier.PickupFieldAddress+".postal_code", "the sandbox carrier collects nowhere in postal code 99999"))
	}
	if strings.HasPrefix(req.Note, NoteRefuse) {
		problems = append(problems, carrier.Reject("", "the sandbox carrier refuses this pickup order (note %s)", NoteRefuse))
	}
	date, err := time.Parse("2006-01-02", req.Date)
	if err != nil {
		return time.Time{}, carrier.Reject(carrier.PickupFieldDate, "must be a date YYYY-MM-DD")
	}
	var fits *sandboxWindow
	for _, w := range windowsOn(date) {
		if w.from <= req.ReadyFrom && req.ReadyUntil <= w.until {
			fits = &w
			break
		}
	}
	var start time.Time
	switch {
	case fits == nil:
		problems = append(problems, carrier.Reject(carrier.PickupFieldReadyFrom, "the sandbox carrier collects on %s in none of its windows holding %s-%s", req.Date, req.ReadyFrom, req.ReadyUntil))
	default:
		start = at(date, fits.from)
		if c.now().After(at(date, fits.orderBy)) {
			problems = append(problems, carrier.Reject(carrier.PickupFieldDate, "the sandbox carrier takes orders for the %s window of %s until %s that day", fits.from, req.Date, fits.orderBy))
		}
	}
	return start, carrier.RejectionOf(problems)
}

func at(date time.Time, hhmm string) time.Time {
	t, _ := time.Parse("15:04", hhmm)
	return date.Add(time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute)
}

// CancelCourierPickup cancels an order until its window starts.
func (c *Carrier) CancelCourierPickup(ctx context.Context, s carrier.Settings, p carrier.CourierPickup) error {
	if err := reachable(ctx, s); err != nil {
		return err
	}
	book := c.pickupBook()
	book.mu.Lock()
	defer book.mu.Unlock()
	if err := c.catchUp(book); err != nil {
		return err
	}
	o, ok := book.byNumber[p.ConfirmationNumber]
	switch {
	case !ok:
		return carrier.Reject("", "the sandbox carrier has no pickup %s", p.ConfirmationNumber)
	case o.cancelled:
		return carrier.ErrAlreadyCancelled
	case o.noCancel:
		return carrier.Reject("", "the courier is on the way; the pickup can no longer be cancelled")
	case !c.now().Before(o.start):
		return carrier.Reject("", "the pickup's window has begun; it can no longer be cancelled")
	}
	if err := c.journal(journalEntry{PickupCancelled: o.pickup.ConfirmationNumber}); err != nil {
		return err
	}
	o.cancelled = true
	return nil
}

// CreateManifest: the sandbox makes no manifest; shipd draws its own.
func (c *Carrier) CreateManifest(context.Context, carrier.Settings, carrier.ManifestRequest) (carrier.CarrierManifest, error) {
	return carrier.CarrierManifest{}, carrier.ErrNotOffered
}

// PickupOrders is how many pickups this value was ordered (an order made
// again under its key is not counted, nor one another process made): what
// "never twice" is tested by in a process; PickupOrdersIn reads a journal
// shared by several.
func (c *Carrier) PickupOrders() int {
	book := c.pickupBook()
	book.mu.Lock()
	defer book.mu.Unlock()
	return book.orders
}

func (c *Carrier) pickupBook() *pickupBook {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pickups == nil {
		c.pickups = &pickupBook{byKey: map[string]*pickupOrder{}, byNumber: map[string]*pickupOrder{}}
	}
	return c.pickups
}
