package sandbox

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"shipd/adapters/labels"
	"shipd/platform/carrier"
)

// journalEntry is one line of the sandbox's journal: a booking the carrier
// made (Booking) or a cancel it accepted (Cancelled, a provider id).
type journalEntry struct {
	Booking   *bookingRecord `json:"booking,omitempty"`
	Cancelled string         `json:"cancelled,omitempty"`
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

func readJournal(path string) ([]journalEntry, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sandbox journal: %w", err)
	}
	defer f.Close() // read only: nothing to lose
	var out []journalEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var e journalEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			continue // a line cut short by a kill: the booking it began never answered
		}
		out = append(out, e)
	}
	return out, sc.Err()
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
