package memory

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"shipd/modules/dispatch/domain"
)

// Shipments is the module's copy of shipments in memory, answering as the
// PostgreSQL reader answers from dispatch.shipments once the copy has read
// the shipments stream: a deleted shipment is not found, only a created one
// is undispatched or a channel's latest, and one a manifest of manifests
// holds is dispatched.
type Shipments struct {
	manifests *Manifests

	mu      sync.Mutex
	rows    map[string]domain.Shipment
	deleted map[string]bool
	fail    map[string]error
}

// NewShipments is an empty copy whose shipments manifests hands over.
func NewShipments(manifests *Manifests) *Shipments {
	return &Shipments{manifests: manifests, rows: map[string]domain.Shipment{}, deleted: map[string]bool{}, fail: map[string]error{}}
}

var _ domain.Shipments = (*Shipments)(nil)

// Put is the copy reading each shipment's newest event: it is known as sh
// says from now on (again, when it was deleted).
func (s *Shipments) Put(shipments ...domain.Shipment) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sh := range shipments {
		s.rows[sh.ID] = copied(sh)
		delete(s.deleted, sh.ID)
	}
}

// Delete is the copy reading the shipment's shipment.deleted: it is kept
// as a tombstone, and no question finds it.
func (s *Shipments) Delete(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deleted[id] = true
}

// Fail makes the operation op ("Find", "Undispatched" or "Latest") answer
// err, as a database that cannot be reached would; nil answers again.
func (s *Shipments) Fail(op string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		delete(s.fail, op)
		return
	}
	s.fail[op] = err
}

// Find returns the shipments of ids the copy knows and has not seen
// deleted.
func (s *Shipments) Find(_ context.Context, ids []string) (map[string]domain.Shipment, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.fail["Find"]; err != nil {
		return nil, err
	}
	out := map[string]domain.Shipment{}
	for _, id := range ids {
		if sh, ok := s.rows[id]; ok && !s.deleted[id] {
			out[id] = copied(sh)
		}
	}
	return out, nil
}

// Undispatched are the channel's created shipments no manifest holds,
// oldest first (by creation, then id), at most limit.
func (s *Shipments) Undispatched(_ context.Context, accountID, channelID string, limit int) ([]domain.Shipment, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.fail["Undispatched"]; err != nil {
		return nil, err
	}
	found := s.created(accountID, channelID)
	found = slices.DeleteFunc(found, func(sh domain.Shipment) bool { return s.manifests.onManifest(sh.ID) })
	return found[:min(len(found), max(limit, 0))], nil
}

// Latest is the channel's newest created shipment.
func (s *Shipments) Latest(_ context.Context, accountID, channelID string) (domain.Shipment, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.fail["Latest"]; err != nil {
		return domain.Shipment{}, false, err
	}
	found := s.created(accountID, channelID)
	if len(found) == 0 {
		return domain.Shipment{}, false, nil
	}
	return found[len(found)-1], true, nil
}

// created are the account's channel's created shipments, oldest first.
func (s *Shipments) created(accountID, channelID string) []domain.Shipment {
	var out []domain.Shipment
	for id, sh := range s.rows {
		if !s.deleted[id] && sh.AccountID == accountID && sh.ChannelID == channelID && sh.Status == "created" {
			out = append(out, copied(sh))
		}
	}
	slices.SortFunc(out, func(a, b domain.Shipment) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return out
}

// copied is sh as its snapshot's round trip through the copy leaves it:
// one tracking number a parcel ("" for none), its own slices and amount.
func copied(sh domain.Shipment) domain.Shipment {
	var numbers []string
	for i := range sh.Parcels {
		n := ""
		if i < len(sh.TrackingNumbers) {
			n = sh.TrackingNumbers[i]
		}
		numbers = append(numbers, n)
	}
	sh.TrackingNumbers = numbers
	if len(sh.Parcels) == 0 {
		sh.Parcels = nil
	} else {
		sh.Parcels = slices.Clone(sh.Parcels)
	}
	if sh.COD != nil {
		cod := *sh.COD
		sh.COD = &cod
	}
	sh.CreatedAt = sh.CreatedAt.UTC()
	return sh
}
