package gls

// The fake's shipping day: POST /rs/sporadiccollection and POST
// /rs/shipments/endofday, requests held to shipit-farm.yaml with the rules
// of GLS's documentation the file lacks (fixCollection), answers held to the
// file too (vendorspec's Answer). What GLS does beyond its documents is the
// fake's reading [U]: a date GLS cannot serve (a weekend, a holiday, a past
// date) moved to the next working day, as GLS's documentation says, its
// answer a date-time at midnight in GLS's zone; a collection of more than
// 1,000 kg refused; the end of day listing every shipment booked for its
// date that is not cancelled, each time it is asked.

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"shipd/adapters/carriers/internal/vendorspec"
)

// fakeToday is the fake's today: dates before it are past.
const fakeToday = "2026-11-30"

// fakeHolidays are days GLS does not collect.
var fakeHolidays = map[string]bool{"2026-12-25": true, "2026-12-26": true}

// fakeDayShipment is a booked shipment as the end of day lists it: the
// Shipment of its booking, every unit with the TrackID and ParcelNumber GLS
// gave it.
type fakeDayShipment struct {
	day      string
	shipment map[string]any
	trackIDs []string
}

// fixCollection writes into SporadicCollection what GLS's documentation
// (rest_sporadic_collection.html) says and shipit-farm.yaml does not:
// PreferredPickUpDate is YYYY-MM-DD (the file says date-time),
// NumberOfParcels is mandatory, > 0 and 6 digits, ContactID 10 characters,
// ExpectedTotalWeight > 0. The end of day's date is typed a date.
func fixCollection(doc *openapi3.T) {
	c := doc.Components.Schemas["SporadicCollection"].Value
	c.Required = append(c.Required, "NumberOfParcels")
	c.Properties["PreferredPickUpDate"].Value.Format = "date"
	c.Properties["ContactID"].Value.MaxLength = openapi3.Uint64Ptr(10)
	n := c.Properties["NumberOfParcels"].Value
	n.Min, n.Max = openapi3.Float64Ptr(1), openapi3.Float64Ptr(999999)
	c.Properties["ExpectedTotalWeight"].Value.WithMin(0).WithExclusiveMin(true)
	doc.Paths.Find("/rs/shipments/endofday").Post.Parameters[0].Value.Schema.Value.Format = "date"
}

// answerer writes a JSON answer held to the operation's answers in the
// vendor file; one that departs from it fails the test.
type answerer func(w http.ResponseWriter, status int, v any)

func (f *fake) answerer(env string, req *vendorspec.Request) answerer {
	return func(w http.ResponseWriter, status int, v any) {
		err := f.specs[env]["shipit"].Answer(w, req, func(w http.ResponseWriter) { writeJSON(w, status, MediaType, v) })
		if err != nil {
			f.t.Errorf("the fake's own answer: %v", err)
		}
	}
}

// keepForTheDay keeps a booking for the end of day (f.mu held).
func (f *fake) keepForTheDay(body []byte, parcels []map[string]any) {
	var req struct{ Shipment map[string]any }
	if err := json.Unmarshal(body, &req); err != nil {
		f.t.Errorf("fake: keeping a booking: %v", err)
		return
	}
	d := &fakeDayShipment{day: fakeToday, shipment: req.Shipment}
	if sd, _ := req.Shipment["ShippingDate"].(string); len(sd) >= 10 {
		d.day = sd[:10]
	}
	units, _ := req.Shipment["ShipmentUnit"].([]any)
	for i, u := range units {
		unit := u.(map[string]any)
		unit["TrackID"], unit["ParcelNumber"] = parcels[i]["TrackID"], parcels[i]["ParcelNumber"]
		d.trackIDs = append(d.trackIDs, parcels[i]["TrackID"].(string))
	}
	f.days = append(f.days, d)
}

func (f *fake) collection(w http.ResponseWriter, body []byte, answer answerer) {
	f.mu.Lock()
	f.bodies["collection"] = append(f.bodies["collection"], body)
	f.mu.Unlock()
	var req collectionRequest
	if err := json.Unmarshal(body, &req); err != nil {
		refuse(w, http.StatusBadRequest, "INVALID_REQUEST", err.Error())
		return
	}
	switch {
	case req.ContactID != f.contactID:
		refuse(w, http.StatusBadRequest, "INVALID_CONTACT", "SporadicCollection.ContactID: unknown contact "+req.ContactID)
		return
	case req.ExpectedTotalWeight > 1000:
		refuse(w, http.StatusBadRequest, "INVALID_WEIGHT", "SporadicCollection.ExpectedTotalWeight: more than 1000 kg is a freight collection")
		return
	}
	day, _ := time.Parse(time.DateOnly, req.PreferredPickUpDate) // a date: the schema checked it
	if today, _ := time.Parse(time.DateOnly, fakeToday); day.Before(today) {
		day = today
	}
	for day.Weekday() == time.Saturday || day.Weekday() == time.Sunday || fakeHolidays[day.Format(time.DateOnly)] {
		day = day.AddDate(0, 0, 1)
	}
	f.mu.Lock()
	f.collections = append(f.collections, day.Format(time.DateOnly))
	f.mu.Unlock()
	answer(w, http.StatusOK, map[string]string{"EstimatedPickUpDate": day.Format(time.DateOnly) + "T00:00:00+01:00"})
}

func (f *fake) endOfDay(w http.ResponseWriter, date string, answer answerer) {
	f.mu.Lock()
	f.endOfDays = append(f.endOfDays, date)
	shipments := []map[string]any{}
	for _, d := range f.days {
		live := false
		for _, id := range d.trackIDs {
			live = live || !f.byTrackID[id].cancelled
		}
		if d.day == date && live {
			shipments = append(shipments, d.shipment)
		}
	}
	f.mu.Unlock()
	answer(w, http.StatusOK, map[string]any{"Shipments": shipments})
}

// collectionCount is how many collections GLS was asked for: what its
// depot's records show.
func (f *fake) collectionCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.collections)
}

// endOfDayDates are the dates the end of day was asked for.
func (f *fake) endOfDayDates() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.endOfDays...)
}

// lastCall is the newest call whose path ends in suffix ("env METHOD path").
func lastCall(f *fake, suffix string) string {
	log := f.callLog()
	for i := len(log) - 1; i >= 0; i-- {
		if strings.HasSuffix(log[i], suffix) {
			return log[i]
		}
	}
	return ""
}
