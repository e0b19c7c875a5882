package dashboard_test

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"shipd/platform/apptest"
)

var orderedPickup = regexp.MustCompile(`^/dashboard/pickups\?ordered=(pck_[A-Za-z0-9]+)$`)

// pickupForm is the order form of channel on 2026-12-01 in its first window,
// with the shipments ticked and the other fields as changes set them.
func pickupForm(channel string, shipments []string, changes ...string) url.Values {
	f := url.Values{"shipping_channel_id": {channel}, "date": {"2026-12-01"}, "window": {"09:00-12:00"}, "shipment_ids": shipments,
		"parcel_count": {""}, "total_weight_kg": {""}, "note": {""}}
	for _, k := range []string{"street_name", "house_number", "apartment_number", "city_name", "postal_code", "country_code"} {
		f.Set("address."+k, "")
	}
	for _, k := range []string{"company_name", "first_name", "last_name", "email_address", "phone_number"} {
		f.Set("contact."+k, "")
	}
	for i := 0; i+1 < len(changes); i += 2 {
		f.Set(changes[i], changes[i+1])
	}
	return f
}

// A pickup of a channel's shipments is ordered through the form: the
// carrier's windows for the date, its created shipments on no pickup
// ticked, address and contact left to the API's defaults; it is then listed
// with its confirmation number, and cancelled.
func TestPickupIsOrderedListedAndCancelled(t *testing.T) {
	t.Parallel()
	env, key, ch := dispEnv(t)
	first := dispShipment(t, env, key, ch, "DAY-1")
	second := dispShipment(t, env, key, ch, "DAY-2")
	third := dispShipment(t, env, key, ch, "DAY-3")
	b := signIn(t, env, "acme", "jana@example.com")

	status, page, _ := b.do(http.MethodGet, "/dashboard/pickups", nil)
	if got := text(page); status != http.StatusOK || !strings.Contains(got, "No pickups yet.") ||
		!strings.Contains(page, `<a href="/dashboard/pickups" aria-current="page">Pickups</a>`) ||
		!strings.Contains(page, `name="date" type="date" required value="2026-11-30"`) ||
		!strings.Contains(page, `<option value="`+ch+`">Main warehouse (sandbox)</option>`) {
		t.Fatalf("the empty list with the order form, today's date by the service's clock: %d\n%s", status, page)
	}

	// The windows of the date, every created shipment ticked.
	newPage := "/dashboard/pickups/new?shipping_channel_id=" + ch + "&date=2026-12-01"
	status, page, _ = b.do(http.MethodGet, newPage, nil)
	got := text(page)
	if status != http.StatusOK || !strings.Contains(got, "09:00–12:00 (order by 08:00)") || !strings.Contains(got, "12:00–17:00 (order by 11:00)") ||
		!strings.Contains(page, `value="09:00-12:00" required>`) {
		t.Fatalf("the windows of Tuesday 1 December: %d\n%s", status, got)
	}
	if offered, ticked := dispOffered(page); !shSameSet(offered, []string{first, second, third}) || !shSameSet(ticked, offered) {
		t.Errorf("offered %v, ticked %v; want the three created shipments, all ticked", offered, ticked)
	}
	for _, want := range []string{"DAY-1", "DAY-2", "DAY-3", "Left blank, the first ticked shipment's origin is used"} {
		if !strings.Contains(got, want) {
			t.Errorf("the form lacks %q", want)
		}
	}
	_, page, _ = b.do(http.MethodGet, "/dashboard/pickups/new?shipping_channel_id="+ch+"&date=2026-12-06", nil)
	if got := text(page); !strings.Contains(got, "The carrier collects on no window on 2026-12-06") || strings.Contains(page, `name="window"`) {
		t.Errorf("a Sunday: no window, no order form:\n%s", got)
	}
	status, page, _ = b.do(http.MethodGet, "/dashboard/pickups/new?shipping_channel_id="+ch+"&date=2026-11-01", nil)
	if status != http.StatusUnprocessableEntity || !strings.Contains(page, `<ul class="reasons"><li>must not be in the past (today is`) ||
		strings.Contains(page, `name="window"`) {
		t.Errorf("a past date: %d, want 422 with the reason by the date\n%s", status, text(page))
	}

	// The API's refusals by their fields, the form kept; nothing ordered.
	for _, c := range []struct {
		name string
		form url.Values
		want string // the reason, by its field
	}{
		{"no window", pickupForm(ch, []string{first}, "window", ""), `name="window" value="12:00-17:00" required> 12:00–17:00 <span class="muted">(order by 11:00)</span></label>
<ul class="reasons"><li>is required</li></ul>`},
		{"a window not offered", pickupForm(ch, []string{first}, "window", "17:00-19:00"), "the window 17:00-19:00 is not one the carrier offers on 2026-12-01"},
		{"half an address", pickupForm(ch, []string{first}, "address.street_name", "Nová"),
			`name="address.house_number" value=""><ul class="reasons"><li>is required</li></ul>`},
		{"no shipment, a count that is none", pickupForm(ch, nil, "parcel_count", "lots", "total_weight_kg", "2"),
			`value="lots">
<ul class="reasons"><li>must be an integer</li></ul>`},
		{"nothing to collect", pickupForm(ch, nil), "parcel_count: is required when no shipment_ids are given"},
		{"a note the carrier refuses", pickupForm(ch, []string{first}, "note", "REFUSE: no courier today"), "refuses this pickup order"},
	} {
		status, page, _ := b.post(newPage, "/dashboard/pickups", c.form)
		if status != http.StatusUnprocessableEntity && status != http.StatusBadRequest || !strings.Contains(text(page), "The pickup was not ordered.") ||
			!strings.Contains(page, c.want) {
			t.Errorf("%s: %d, want 422 with %q\n%s", c.name, status, c.want, page)
		}
		if _, ticked := dispOffered(page); c.form["shipment_ids"] != nil && !slices.Equal(ticked, c.form["shipment_ids"]) {
			t.Errorf("%s: ticked %v after the refusal, want what was sent", c.name, ticked)
		}
	}
	if n := dispCount(t, env, "pickups"); n != 0 {
		t.Fatalf("%d pickups after refused forms", n)
	}

	// A shipment of another channel is refused beside its row.
	other := env.ActiveSandboxChannel(key, "Second warehouse", nil)
	stranger := dispShipment(t, env, key, other, "ELSEWHERE-1")
	status, page, _ = b.post(newPage, "/dashboard/pickups", pickupForm(ch, []string{first, stranger}))
	if row := dispRow(page, "data-shipment-id", stranger); status != http.StatusUnprocessableEntity ||
		!strings.Contains(row, "is a shipment of another shipping channel") || !strings.Contains(row, " checked>") {
		t.Errorf("a shipment of another channel: %d, its row %q\n%s", status, row, text(page))
	}
	if _, ticked := dispOffered(page); !shSameSet(ticked, []string{first, stranger}) {
		t.Errorf("ticked %v after the refusal", ticked)
	}

	// Ordered: the API's defaults fill address and contact.
	status, _, res := b.post(newPage, "/dashboard/pickups", pickupForm(ch, []string{first, second}, "note", "Gate B"))
	m := orderedPickup.FindStringSubmatch(res.Header.Get("Location"))
	if status != http.StatusSeeOther || m == nil {
		t.Fatalf("ordering: %d to %q", status, res.Header.Get("Location"))
	}
	pickupID := m[1]
	p := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/pickups/" + pickupID, Key: key}).Data(t)
	confirmation, _ := p["confirmation_number"].(string)
	if p["status"] != "scheduled" || !strings.HasPrefix(confirmation, "SBC-20261201-") || p["ready_from"] != "09:00" || p["ready_until"] != "12:00" ||
		!shSameSet(toStrings(p["shipment_ids"]), []string{first, second}) || p["note"] != "Gate B" ||
		p["address"].(map[string]any)["street_name"] != "Skladová" || p["contact"].(map[string]any)["company_name"] != "Acme s.r.o." {
		t.Fatalf("the pickup ordered: %v", p)
	}
	status, page, _ = b.do(http.MethodGet, res.Header.Get("Location"), nil)
	if got := text(page); status != http.StatusOK || !strings.Contains(got, "Pickup ordered for 2026-12-01, 09:00–12:00: the carrier confirmed it as "+confirmation+".") {
		t.Errorf("after ordering: %d\n%s", status, got)
	}
	// The list is a read model that follows the pickup's events.
	var row string
	apptest.Eventually(t, time.Minute, "the pickup listed", func() bool {
		_, page, _ = b.do(http.MethodGet, "/dashboard/pickups", nil)
		row = dispRow(page, "data-pickup-id", pickupID)
		return row != ""
	})
	if got := text(row); !strings.Contains(got, "2026-12-01 09:00–12:00 scheduled "+confirmation+" Main warehouse 2 (3 kg) 2 shipments") ||
		!strings.Contains(row, `action="/dashboard/pickups/`+pickupID+`/cancel"`) {
		t.Errorf("the list's row: %s", got)
	}

	// The next form offers what is on no pickup; a second pickup of the date
	// is refused on the date.
	_, page, _ = b.do(http.MethodGet, newPage, nil)
	if offered, _ := dispOffered(page); !slices.Equal(offered, []string{third}) {
		t.Errorf("offered %v once two are on a pickup, want only %s", offered, third)
	}
	status, page, _ = b.post(newPage, "/dashboard/pickups", pickupForm(ch, []string{third}, "window", "12:00-17:00"))
	if status != http.StatusUnprocessableEntity || !strings.Contains(text(page), "date:") {
		t.Errorf("a second pickup of the date: %d\n%s", status, text(page))
	}

	// Filters go to the API, which judges them.
	for _, c := range []struct {
		query string
		want  bool
	}{
		{"?status=scheduled", true}, {"?status=cancelled", false}, {"?date=2026-12-01&shipping_channel_id=" + ch, true},
		{"?date=2026-12-02", false}, {"?shipping_channel_id=" + other, false},
	} {
		status, page, _ := b.do(http.MethodGet, "/dashboard/pickups"+c.query, nil)
		if status != http.StatusOK || (dispRow(page, "data-pickup-id", pickupID) != "") != c.want {
			t.Errorf("%s: %d, listed %v, want %v", c.query, status, !c.want, c.want)
		}
	}
	for _, c := range []struct{ query, want string }{
		{"?status=done", "status: must be one of: ordering, scheduled, unconfirmed, cancelled"},
		{"?date=tomorrow", "date: must be a date YYYY-MM-DD"},
	} {
		status, page, _ := b.do(http.MethodGet, "/dashboard/pickups"+c.query, nil)
		if status != http.StatusUnprocessableEntity || !strings.Contains(text(page), c.want) || strings.Contains(page, "data-pickup-id") {
			t.Errorf("%s: %d, want 422 saying %q\n%s", c.query, status, c.want, text(page))
		}
	}

	// Cancelled once; the second time the API's 409 is shown over the list.
	status, _, res = b.post("/dashboard/pickups", "/dashboard/pickups/"+pickupID+"/cancel", nil)
	if status != http.StatusSeeOther || res.Header.Get("Location") != "/dashboard/pickups?cancelled="+pickupID {
		t.Fatalf("cancel: %d to %q", status, res.Header.Get("Location"))
	}
	if p := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/pickups/" + pickupID, Key: key}).Data(t); p["status"] != "cancelled" {
		t.Fatalf("after the cancel the API has %v", p["status"])
	}
	_, page, _ = b.do(http.MethodGet, res.Header.Get("Location"), nil)
	if got := text(page); !strings.Contains(got, "The pickup of 2026-12-01, 09:00–12:00 is cancelled.") {
		t.Errorf("after cancelling:\n%s", got)
	}
	apptest.Eventually(t, time.Minute, "the pickup listed as cancelled", func() bool {
		_, page, _ = b.do(http.MethodGet, "/dashboard/pickups", nil)
		row = dispRow(page, "data-pickup-id", pickupID)
		return strings.Contains(row, "status-cancelled")
	})
	if strings.Contains(row, "/cancel") {
		t.Errorf("a cancelled pickup offers to cancel it: %s", text(row))
	}
	status, page, _ = b.post("/dashboard/pickups", "/dashboard/pickups/"+pickupID+"/cancel", nil)
	if got := text(page); status != http.StatusConflict || !strings.Contains(got, "The pickup was not cancelled. The pickup is cancelled already.") ||
		!strings.Contains(got, "Order a pickup") {
		t.Errorf("a second cancel: %d\n%s", status, got)
	}
	// Cancelled, its shipments are offered again.
	_, page, _ = b.do(http.MethodGet, newPage, nil)
	if offered, _ := dispOffered(page); !shSameSet(offered, []string{first, second, third}) {
		t.Errorf("offered %v after the cancel", offered)
	}

	// A pickup the carrier will not cancel: its answer over the list.
	status, _, res = b.post(newPage, "/dashboard/pickups", pickupForm(ch, nil, "date", "2026-12-02", "parcel_count", "4", "total_weight_kg", "12.5",
		"note", "NO-CANCEL: collected by arrangement"))
	m = orderedPickup.FindStringSubmatch(res.Header.Get("Location"))
	if status != http.StatusSeeOther || m == nil {
		t.Fatalf("ordering a count: %d to %q", status, res.Header.Get("Location"))
	}
	if p := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/pickups/" + m[1], Key: key}).Data(t); p["parcel_count"] != 4.0 || p["total_weight_kg"] != 12.5 {
		t.Errorf("the count and weight typed: %v", p)
	}
	status, page, _ = b.post("/dashboard/pickups", "/dashboard/pickups/"+m[1]+"/cancel", nil)
	if got := text(page); status != http.StatusConflict || !strings.Contains(got, "The pickup was not cancelled.") {
		t.Errorf("a pickup the carrier does not cancel: %d\n%s", status, got)
	}
	if p := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/pickups/" + m[1], Key: key}).Data(t); p["status"] != "scheduled" {
		t.Errorf("after the refused cancel the pickup is %v", p["status"])
	}
}

// Another account's pickups and channels are not there; forms without the
// session's token change nothing.
func TestPickupPagesRefuseOtherAccountsAndForgedForms(t *testing.T) {
	t.Parallel()
	env, key, ch := dispEnv(t)
	first := dispShipment(t, env, key, ch, "MINE-1")
	res := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/pickups", Key: key, Body: map[string]any{
		"shipping_channel_id": ch, "date": "2026-12-01", "ready_from": "09:00", "ready_until": "12:00", "shipment_ids": []string{first}}})
	if res.Status != http.StatusCreated {
		t.Fatalf("ordering through the API: %d %s", res.Status, res.Body)
	}
	pickupID := res.Data(t)["id"].(string)
	env.NewKey("globex")
	theirs := signIn(t, env, "globex", "max@example.com")
	const noPickup = "Your account has no pickup with that id; nothing was changed."

	_, page, _ := theirs.do(http.MethodGet, "/dashboard/pickups", nil)
	if strings.Contains(page, pickupID) || strings.Contains(page, "Main warehouse") || !strings.Contains(text(page), "No pickups yet.") {
		t.Errorf("globex sees acme's pickup or channel:\n%s", text(page))
	}
	for _, id := range []string{pickupID, "pck_01JD0000000000000000000000", "bad%20id"} {
		status, page, _ := theirs.post("/dashboard/pickups", "/dashboard/pickups/"+id+"/cancel", nil)
		if status != http.StatusForbidden || !strings.Contains(text(page), noPickup) {
			t.Errorf("globex cancels %s: %d\n%s", id, status, text(page))
		}
	}
	if _, page, _ := theirs.do(http.MethodGet, "/dashboard/pickups?ordered="+pickupID, nil); strings.Contains(text(page), "Pickup ordered") {
		t.Error("a link naming acme's pickup shows it to globex")
	}
	status, page, _ := theirs.do(http.MethodGet, "/dashboard/pickups/new?shipping_channel_id="+ch+"&date=2026-12-01", nil)
	if status != http.StatusForbidden || strings.Contains(page, "MINE-1") || strings.Contains(page, "09:00") {
		t.Errorf("globex asks for acme's channel's windows: %d\n%s", status, text(page))
	}
	status, page, _ = theirs.post("/dashboard/pickups", "/dashboard/pickups", pickupForm(ch, []string{first}, "date", "2026-12-02"))
	if status < 400 || status >= 500 || strings.Contains(page, "MINE-1") {
		t.Errorf("globex orders a pickup of acme's shipment: %d\n%s", status, text(page))
	}

	b := signIn(t, env, "acme", "jana@example.com")
	for _, token := range []string{"forged", ""} {
		form := pickupForm(ch, []string{first}, "date", "2026-12-02", "csrf_token", token)
		if status, page, _ := b.do(http.MethodPost, "/dashboard/pickups", form); status != http.StatusForbidden || !strings.Contains(text(page), "nothing was changed") {
			t.Errorf("order with form token %q: %d", token, status)
		}
		if status, _, _ := b.do(http.MethodPost, "/dashboard/pickups/"+pickupID+"/cancel", url.Values{"csrf_token": {token}}); status != http.StatusForbidden {
			t.Errorf("cancel with form token %q: %d", token, status)
		}
	}
	if n := dispCount(t, env, "pickups"); n != 1 {
		t.Errorf("%d pickups, want the one ordered through the API", n)
	}
	if p := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/pickups/" + pickupID, Key: key}).Data(t); p["status"] != "scheduled" {
		t.Errorf("acme's pickup is %v", p["status"])
	}
}

func toStrings(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
