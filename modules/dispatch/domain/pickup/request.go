package pickup

import (
	"math"
	"strconv"
	"strings"
	"time"

	"shipd/modules/dispatch/domain"
	"shipd/platform/carrier"
	"shipd/platform/fault"
)

// The bounds of a pickup order: a courier's visit, not a freight order.
const (
	MaxShipments     = 500
	MaxParcelCount   = 999
	MaxTotalWeightKG = 10000
)

// Request is a client's pickup order, as the API reads it. Address and
// Contact nil: the defaults New is given. ShipmentIDs nil: a count and a
// weight instead.
type Request struct {
	ChannelID     string
	Date          string
	ReadyFrom     string
	ReadyUntil    string
	Address       *carrier.Address
	Contact       *carrier.Contact
	ShipmentIDs   []string
	ParcelCount   *int
	TotalWeightKG *float64
	Note          string
}

// Check is the request's own problems, before any channel or shipment is
// looked at: the date (not past, at most domain.MaxDaysAhead ahead), the
// window, the address and contact given, the shipment ids' form and the
// counts.
func (r Request) Check(now time.Time) error {
	errs := fault.FieldErrors{}
	r.check(errs, now)
	return errs.Err()
}

func (r Request) check(errs fault.FieldErrors, now time.Time) (domain.Window, bool) {
	if r.ChannelID == "" {
		errs.Add("shipping_channel_id", "is required")
	}
	domain.CheckDate(errs, "date", r.Date, now)
	w, ok := domain.CheckWindow(errs, "ready_from", r.ReadyFrom, "ready_until", r.ReadyUntil)
	if r.Address != nil {
		domain.CheckAddress(errs, "address", *r.Address)
	}
	if r.Contact != nil {
		domain.CheckContact(errs, "contact", *r.Contact)
	}
	domain.CheckNote(errs, "note", r.Note)
	seen := map[string]int{}
	for i, id := range r.ShipmentIDs {
		path := "shipment_ids." + strconv.Itoa(i)
		if j, dup := seen[id]; dup {
			errs.Add(path, "repeats shipment_ids."+strconv.Itoa(j))
		} else if !domain.IsShipmentID(id) {
			errs.Add(path, "must be a shipment id (sh_...)")
		}
		seen[id] = i
	}
	if r.ShipmentIDs != nil && len(r.ShipmentIDs) == 0 {
		errs.Add("shipment_ids", "must have at least 1 item, or be left out for a parcel_count and total_weight_kg")
	}
	if len(r.ShipmentIDs) > MaxShipments {
		errs.Add("shipment_ids", "must have at most "+strconv.Itoa(MaxShipments)+" items")
	}
	if r.ParcelCount != nil && (*r.ParcelCount < 1 || *r.ParcelCount > MaxParcelCount) {
		errs.Add("parcel_count", "must be from 1 to "+strconv.Itoa(MaxParcelCount))
	}
	if r.TotalWeightKG != nil && (!(*r.TotalWeightKG > 0) || *r.TotalWeightKG > MaxTotalWeightKG || math.IsInf(*r.TotalWeightKG, 0)) {
		errs.Add("total_weight_kg", "must be more than 0 and at most "+strconv.Itoa(MaxTotalWeightKG))
	}
	if r.ShipmentIDs == nil {
		if r.ParcelCount == nil {
			errs.Add("parcel_count", "is required when no shipment_ids are given")
		}
		if r.TotalWeightKG == nil {
			errs.Add("total_weight_kg", "is required when no shipment_ids are given")
		}
	}
	return w, ok
}

// Context is what New is told besides the request: who orders it, what
// the carrier offers, the shipments it names as the module knows them, the
// address and contact that stand when the request names none, and the
// windows the carrier offers on its date.
type Context struct {
	ID        string
	AccountID string
	Provider  string
	Dispatch  carrier.DispatchInfo
	Shipments map[string]domain.Shipment
	// DefaultAddress and DefaultContact are nil when nothing says them
	// (no shipment named, none made on the channel yet).
	DefaultAddress *carrier.Address
	DefaultContact *carrier.Contact
	Windows        []domain.Window
	Now            time.Time
}

// New is a pickup being ordered (StatusOrdering): it refuses what Check
// refuses, a carrier without pickups, shipments it cannot collect (unknown,
// of another account or channel, not created at the carrier, cancelled),
// a count where the carrier needs the shipments named, a window the
// carrier does not offer on the date, and a missing address or contact
// that no default fills.
func New(r Request, c Context) (*Pickup, error) {
	errs := fault.FieldErrors{}
	w, windowOK := r.check(errs, c.Now)
	if !c.Dispatch.Pickups {
		reason := "uses provider " + c.Provider + ", which takes no courier pickups through its API"
		if c.Dispatch.Note != "" {
			reason += ": " + c.Dispatch.Note
		}
		errs.Add("shipping_channel_id", reason)
		return nil, errs.Err()
	}
	if r.ShipmentIDs == nil && c.Dispatch.PickupShipments == carrier.PickupNamesShipments {
		errs.Add("shipment_ids", "is required: provider "+c.Provider+" collects named shipments only")
	}
	parcels, weight := 0, 0.0
	for i, id := range r.ShipmentIDs {
		sh, known := c.Shipments[id]
		if !known {
			if domain.IsShipmentID(id) {
				errs.Add("shipment_ids."+strconv.Itoa(i), "does not name a shipment this module knows (a shipment created at its carrier moments ago may not be known yet: try again)")
			}
			continue
		}
		if p := sh.DispatchProblem(c.AccountID, r.ChannelID); p != "" {
			errs.Add("shipment_ids."+strconv.Itoa(i), p)
		}
		parcels += len(sh.Parcels)
		weight += sh.WeightKG()
	}
	if r.ParcelCount != nil {
		if *r.ParcelCount >= 1 && *r.ParcelCount < parcels { // below 1 is check's
			errs.Add("parcel_count", "must be at least the "+strconv.Itoa(parcels)+" parcels of the shipments named")
		}
		parcels = *r.ParcelCount
	}
	if r.TotalWeightKG != nil {
		weight = *r.TotalWeightKG
	}
	address, contact := r.Address, r.Contact
	if address == nil {
		address = c.DefaultAddress
	}
	if contact == nil {
		contact = c.DefaultContact
	}
	// A default's problems are told as the request's (check told the
	// request's own already).
	if address == nil {
		errs.Add("address", "is required: no shipment of this channel names an origin address to default to")
	} else if r.Address == nil {
		domain.CheckAddress(errs, "address", *address)
	}
	if contact == nil {
		errs.Add("contact", "is required: no shipment of this channel names a sender to default to")
	} else if r.Contact == nil {
		domain.CheckContact(errs, "contact", *contact)
	}
	date, _ := domain.ParseDate(r.Date)
	if windowOK && len(errs) == 0 {
		windowProblem(errs, w, c.Windows, date)
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	a := domain.CheckAddress(fault.FieldErrors{}, "", *address)
	ct := domain.CheckContact(fault.FieldErrors{}, "", *contact)
	return &Pickup{s: Stored{
		ID: c.ID, AccountID: c.AccountID, ChannelID: r.ChannelID, Provider: c.Provider, Status: StatusOrdering,
		Date: r.Date, ReadyFrom: w.From.String(), ReadyUntil: w.Until.String(), Address: a, Contact: ct,
		ShipmentIDs: append([]string(nil), r.ShipmentIDs...), ParcelCount: parcels,
		TotalWeightKG: math.Round(weight*1000) / 1000, Note: r.Note,
		Version: 1, CreatedAt: c.Now, UpdatedAt: c.Now,
	}}, nil
}

// windowProblem adds the problem of a window no offered one holds.
func windowProblem(errs fault.FieldErrors, w domain.Window, offered []domain.Window, date time.Time) {
	if len(offered) == 0 {
		errs.Add("date", "the carrier collects on no window on "+date.Format(domain.DateLayout)+" (a "+date.Weekday().String()+")")
		return
	}
	names := make([]string, len(offered))
	for i, o := range offered {
		if w.Within(o) {
			return
		}
		names[i] = o.String()
	}
	errs.Add("ready_from", "the window "+w.String()+" is not one the carrier offers on "+date.Format(domain.DateLayout)+
		": it must lie within "+strings.Join(names, " or "))
}
