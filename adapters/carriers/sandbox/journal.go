package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"shipd/adapters/labels"
	"shipd/platform/carrier"
)

// journalEntry is one line of the sandbox's journal: a booking the carrier
// made (Booking) or a cancel it accepted (Cancelled, a provider id), a
// courier pickup it was ordered (Pickup) or a pickup it cancelled
// (PickupCancelled, a confirmation number).
type journalEntry struct {
	Booking         *bookingRecord `json:"booking,omitempty"`
	Cancelled       string         `json:"cancelled,omitempty"`
	Pickup          *pickupRecord  `json:"pickup,omitempty"`
	PickupCancelled string         `json:"pickup_cancelled,omitempty"`
}

// bookingRecord is what the sandbox keeps of one booking, enough to resume
// it and to print its labels again in another process.
type bookingRecord struct {
	// Key is the booking key shipd sent (its shipment id): two records
	// with one key are two bookings of one shipment, what a carrier
	// without idempotency keys makes when it is asked twice.
	Key                string               `json:"key"`
	ProviderShipmentID string               `json:"provider_shipment_id"`
	Reference          string               `json:"reference"`
	Price              *carrier.Money       `json:"price,omitempty"`
	Labels             []labels.ParcelLabel `json:"labels"`
}

// pickupRecord is what the sandbox keeps of one pickup order, enough to
// answer it again and to cancel it in another process.
type pickupRecord struct {
	// Key is shipd's key of the order (its pickup id): two records with
	// one key are two orders of one pickup.
	Key                string    `json:"key"`
	ConfirmationNumber string    `json:"confirmation_number"`
	Date               string    `json:"date"`
	ReadyFrom          string    `json:"ready_from"`
	ReadyUntil         string    `json:"ready_until"`
	Start              time.Time `json:"start"` // the window's start, UTC: the cancel deadline
	NoCancel           bool      `json:"no_cancel,omitempty"`
}

// Bookings reads a journal file (Config.Journal) and returns the number of
// bookings made under each booking key: the fault suite's proof that no
// shipment was booked twice.
func Bookings(path string) (map[string]int, error) {
	entries, err := readJournal(path)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, e := range entries {
		if e.Booking != nil {
			out[e.Booking.Key]++
		}
	}
	return out, nil
}

// PickupOrdersIn reads a journal file (Config.Journal) and returns the
// confirmation numbers of the pickup orders made under each key, one each
// unless a key was ordered twice: the fault suite's proof that no pickup
// was ordered twice.
func PickupOrdersIn(path string) (map[string][]string, error) {
	entries, err := readJournal(path)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, e := range entries {
		if e.Pickup != nil {
			out[e.Pickup.Key] = append(out[e.Pickup.Key], e.Pickup.ConfirmationNumber)
		}
	}
	return out, nil
}

func readJournal(path string) ([]journalEntry, error) {
	entries, _, err := readJournalFrom(path, 0)
	return entries, err
}

// readJournalFrom reads the journal's whole lines from offset on and
// answers where they end, the next read's offset. A line without its
// newline is one being written, or cut short by a kill: it is left for
// the next read, and a line that does not parse (one a kill cut short and
// another process's append continued) is skipped, since the call it began
// never answered.
func readJournalFrom(path string, offset int64) ([]journalEntry, int64, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, offset, nil
	}
	if err != nil {
		return nil, offset, fmt.Errorf("sandbox journal: %w", err)
	}
	defer f.Close() // read only: nothing to lose
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, offset, fmt.Errorf("sandbox journal: %w", err)
	}
	raw, err := io.ReadAll(f)
	if err != nil {
		return nil, offset, fmt.Errorf("sandbox journal: %w", err)
	}
	whole := raw[:bytes.LastIndexByte(raw, '\n')+1]
	var out []journalEntry
	for line := range bytes.Lines(whole) {
		var e journalEntry
		if json.Unmarshal(line, &e) == nil {
			out = append(out, e)
		}
	}
	return out, offset + int64(len(whole)), nil
}

// journal appends e to the journal, when the sandbox keeps one: one write
// of one line in append mode, so processes sharing the file interleave whole
// lines. It is written before the booking is answered, as a carrier's
// database commits before its API answers.
func (c *Carrier) journal(e journalEntry) error {
	if c.config.Journal == "" {
		return nil
	}
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(c.config.Journal, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return unavailable("sandbox journal: %v", err)
	}
	_, werr := f.Write(append(line, '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return unavailable("sandbox journal: %v", werr)
	}
	return nil
}

// recall loads a booking another process (or this one before a restart)
// made, from the journal; ok is false when there is none.
func (c *Carrier) recall(providerShipmentID string) (*shipment, bool) {
	if c.config.Journal == "" {
		return nil, false
	}
	entries, err := readJournal(c.config.Journal)
	if err != nil {
		return nil, false
	}
	var found *shipment
	for _, e := range entries {
		switch {
		case e.Booking != nil && e.Booking.ProviderShipmentID == providerShipmentID:
			found = &shipment{reference: e.Booking.Reference, labels: e.Booking.Labels, key: e.Booking.Key, price: e.Booking.Price}
		case e.Cancelled == providerShipmentID && found != nil:
			found.cancelled = true
		}
	}
	return found, found != nil
}
