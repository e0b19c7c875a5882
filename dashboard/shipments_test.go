package dashboard_test

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"image/png"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"shipd"
	"shipd/platform/apptest"
	"shipd/platform/auth"
	"shipd/platform/clock"
	"shipd/platform/config"
)

// Shipments are made through the API, as a client would, then read in the
// dashboard. The helpers are prefixed sh so they cannot clash with other
// pages' tests in this package.

func shParcel(weight float64) map[string]any {
	return map[string]any{"parcel_type": "package", "length_dimension": 30, "width_dimension": 20, "height_dimension": 10,
		"dimension_unit": "CM", "weight_amount": weight, "weight_unit": "KG"}
}

func shBody(channel, reference string, parcels int) map[string]any {
	ps := make([]any, parcels)
	for i := range ps {
		ps[i] = shParcel(1.5 + float64(i))
	}
	return map[string]any{
		"shipping_channel_id": channel,
		"reference_number":    reference,
		"sender_contact":      map[string]any{"company_name": "Acme s.r.o.", "email_address": "ship@acme.test", "phone_number": "+420111222333"},
		"recipient_contact":   map[string]any{"first_name": "Jana", "last_name": "Nováková", "email_address": "jana@example.test", "phone_number": "+420777888999"},
		"origin_address":      map[string]any{"street_name": "Skladová", "house_number": "1", "city_name": "Praha", "postal_code": "11000", "country_code": "CZ"},
		"destination_address": map[string]any{"street_name": "Dlouhá", "house_number": "12", "city_name": "Brno", "postal_code": "60200", "country_code": "CZ"},
		"parcels":             ps,
	}
}

func shCreate(t *testing.T, env *apptest.Env, key string, body map[string]any) string {
	t.Helper()
	res := env.Do(apptest.Request{Method: http.MethodPost, Path: "/v1/shipments", Key: key, Body: body})
	if res.Status != http.StatusCreated {
		t.Fatalf("create shipment: %d %s", res.Status, res.Body)
	}
	return res.Data(t)["id"].(string)
}

// shAwaitCarrier polls until the carrier answered (booked or refused). The
// limit is generous: the machine may be busy.
func shAwaitCarrier(t *testing.T, env *apptest.Env, key, id string) map[string]any {
	t.Helper()
	var sh map[string]any
	apptest.Eventually(t, 90*time.Second, "the carrier answers for "+id, func() bool {
		sh = env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments/" + id, Key: key}).Data(t)
		return sh["is_successful"] != nil
	})
	return sh
}

func shTrackingNumbers(t *testing.T, sh map[string]any) []string {
	t.Helper()
	var out []string
	for _, p := range sh["parcels"].([]any) {
		tn, _ := p.(map[string]any)["tracking_number"].(string)
		if tn == "" {
			t.Fatalf("parcel without a tracking number: %v", sh)
		}
		out = append(out, tn)
	}
	return out
}

func shTotal(t *testing.T, env *apptest.Env, key, query string) float64 {
	t.Helper()
	res := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments" + query, Key: key})
	if res.Status != http.StatusOK {
		t.Fatalf("list %s: %d %s", query, res.Status, res.Body)
	}
	return res.JSON(t)["meta"].(map[string]any)["total"].(float64)
}

var shRow = regexp.MustCompile(`data-shipment-id="([^"]+)"`)

// shRows are the ids of the list page's rows, in order.
func shRows(page string) []string {
	var ids []string
	for _, m := range shRow.FindAllStringSubmatch(page, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

func shSameSet(got, want []string) bool {
	g, w := slices.Clone(got), slices.Clone(want)
	slices.Sort(g)
	slices.Sort(w)
	return slices.Equal(g, w)
}

// shLink is the href of the pager link with rel, unescaped.
func shLink(t *testing.T, page, rel string) string {
	t.Helper()
	m := regexp.MustCompile(`<a href="([^"]+)" rel="` + rel + `">`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no %s link on the page:\n%s", rel, text(page))
	}
	return html.UnescapeString(m[1])
}

func TestShipmentsListFiltersSearchesAndPages(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	otherKey := env.NewKey("globex")
	chA := env.ActiveSandboxChannel(key, "Warehouse A", nil)
	chB := env.ActiveSandboxChannel(key, "Warehouse B", nil)
	chTheirs := env.ActiveSandboxChannel(otherKey, "Globex main", nil)

	var ids []string
	for i := range 5 {
		ch := chA
		if i%2 == 1 {
			ch = chB
		}
		ids = append(ids, shCreate(t, env, key, shBody(ch, fmt.Sprintf("SHOP-%d", i), 1)))
	}
	theirs := shCreate(t, env, otherKey, shBody(chTheirs, "THEIRS-1", 1))
	booked := map[string]map[string]any{}
	for _, id := range ids {
		booked[id] = shAwaitCarrier(t, env, key, id)
	}
	shAwaitCarrier(t, env, otherKey, theirs)
	// The list is a read model that follows the bookings' events (ADR 0015).
	apptest.Eventually(t, 60*time.Second, "the five bookings reach the list", func() bool {
		return shTotal(t, env, key, "?status=created") == 5 && shTotal(t, env, otherKey, "?status=created") == 1
	})
	// The rows name their channels from the channels list, a read model too.
	apptest.Eventually(t, 60*time.Second, "both channels reach the channels list", func() bool {
		meta, _ := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipping-channels", Key: key}).JSON(t)["meta"].(map[string]any)
		return meta != nil && meta["total"] == float64(2)
	})

	b := signIn(t, env, "acme", "jana@example.com")
	status, page, _ := b.do(http.MethodGet, "/dashboard/shipments", nil)
	if status != http.StatusOK || !shSameSet(shRows(page), ids) {
		t.Fatalf("list: %d, rows %v, want %v\n%s", status, shRows(page), ids, text(page))
	}
	got := text(page)
	for _, want := range []string{"SHOP-0", "SHOP-4", "Warehouse A", "Warehouse B", "created", "EUR"} {
		if !strings.Contains(got, want) {
			t.Errorf("the list lacks %q:\n%s", want, got)
		}
	}
	for _, id := range ids {
		if !strings.Contains(page, `href="/dashboard/shipments/`+id+`"`) {
			t.Errorf("no link to %s", id)
		}
	}
	if strings.Contains(got, "THEIRS-1") || strings.Contains(got, "Globex main") || strings.Contains(page, theirs) || strings.Contains(page, chTheirs) {
		t.Errorf("the list shows another account's shipment or channel:\n%s", got)
	}

	// Filters narrow the list and stay in the form.
	carrierID := booked[ids[2]]["provider_shipment_id"].(string)
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"?shipping_channel_id=" + chB, []string{ids[1], ids[3]}},
		{"?status=created", ids},
		{"?status=pending", nil},
		{"?search=SHOP-3", []string{ids[3]}},
		{"?search=" + url.QueryEscape(carrierID), []string{ids[2]}},
		{"?status=created&shipping_channel_id=" + chA + "&search=SHOP-", []string{ids[0], ids[2], ids[4]}},
		{"?shipping_channel_id=" + chTheirs, nil}, // another account's channel finds nothing
		{"?per_page=2&page=9", nil},               // past the last page
	} {
		status, page, _ := b.do(http.MethodGet, "/dashboard/shipments"+c.query, nil)
		if status != http.StatusOK || !shSameSet(shRows(page), c.want) {
			t.Errorf("%s: %d, rows %v, want %v", c.query, status, shRows(page), c.want)
		}
		if len(c.want) == 0 && !strings.Contains(text(page), "No shipments match these filters.") && !strings.Contains(text(page), "No shipments on this page.") {
			t.Errorf("%s: no word that nothing matched:\n%s", c.query, text(page))
		}
	}
	_, page, _ = b.do(http.MethodGet, "/dashboard/shipments?status=delivered&shipping_channel_id="+chB+"&search=SHOP", nil)
	for _, want := range []string{`<option value="delivered" selected>`, `<option value="` + chB + `" selected>`, `name="search" maxlength="255" value="SHOP"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the form does not keep its filter: no %s", want)
		}
	}

	// A tracking number finds its shipment through the tracking parcels made
	// when it was booked (ADR 0018).
	tn := shTrackingNumbers(t, booked[ids[4]])[0]
	apptest.Eventually(t, 60*time.Second, "tracking parcel of "+tn, func() bool {
		res := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/tracking-parcels?search=" + tn, Key: key})
		return strings.Contains(string(res.Body), ids[4])
	})
	status, page, _ = b.do(http.MethodGet, "/dashboard/shipments?search="+tn, nil)
	if status != http.StatusOK || !strings.Contains(page, `href="/dashboard/shipments/`+ids[4]+`">shipment `+ids[4]) || !strings.Contains(text(page), tn) {
		t.Errorf("search by tracking number %s: %d\n%s", tn, status, text(page))
	}

	// Pages of two keep the filters, and together hold each shipment once.
	status, page, _ = b.do(http.MethodGet, "/dashboard/shipments?per_page=2&search=SHOP-", nil)
	if status != http.StatusOK || len(shRows(page)) != 2 || !strings.Contains(text(page), "Shipments 1–2 of 5 · page 1 of 3") {
		t.Fatalf("first page of two: %d %v\n%s", status, shRows(page), text(page))
	}
	seen := shRows(page)
	next := shLink(t, page, "next")
	if q, _ := url.ParseQuery(strings.TrimPrefix(next, "/dashboard/shipments?")); q.Get("search") != "SHOP-" || q.Get("per_page") != "2" || q.Get("page") != "2" {
		t.Errorf("next link %q does not keep the filters", next)
	}
	if strings.Contains(page, `rel="prev"`) {
		t.Error("a previous link on the first page")
	}
	for n := 2; n <= 3; n++ {
		status, page, _ = b.do(http.MethodGet, next, nil)
		if status != http.StatusOK {
			t.Fatalf("page %d: %d", n, status)
		}
		seen = append(seen, shRows(page)...)
		if n < 3 {
			next = shLink(t, page, "next")
		}
	}
	if strings.Contains(page, `rel="next"`) || !strings.Contains(text(page), "Shipments 5–5 of 5 · page 3 of 3") {
		t.Errorf("last page:\n%s", text(page))
	}
	if prev := shLink(t, page, "prev"); !strings.Contains(prev, "page=2") || !strings.Contains(prev, "search=SHOP-") {
		t.Errorf("prev link %q", prev)
	}
	if len(seen) != 5 || !shSameSet(seen, ids) {
		t.Errorf("the pages held %v, want each of %v once", seen, ids)
	}

	// Filters the API refuses: its message on the page, with the form, and
	// the API's status; never a 5xx.
	for _, c := range []struct{ query, want string }{
		{"?status=lost", "status: must be one of: pending, created"},
		{"?page=0", "page: must be an integer from 1 to 1000000"},
		{"?page=x&per_page=1000", "per_page: must be an integer from 1 to 100"},
		{"?search=a%00b", "search: must be UTF-8 text without NUL characters"},
		{"?search=%ff", "search: must be UTF-8 text without NUL characters"},
		{"?search=" + strings.Repeat("x", 256), "search: must be at most 255 characters"},
		{"?shipping_channel_id=%00", "shipping_channel_id: must be UTF-8 text"},
	} {
		status, page, res := b.do(http.MethodGet, "/dashboard/shipments"+c.query, nil)
		if (status != http.StatusUnprocessableEntity && status != http.StatusBadRequest) || !strings.Contains(text(page), c.want) ||
			!strings.Contains(page, `name="search"`) || len(shRows(page)) != 0 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
			t.Errorf("%s: %d, want 422 or 400 saying %q with the form and no rows:\n%s", c.query, status, c.want, text(page))
		}
	}

	// The other account sees its own shipment only.
	other := signIn(t, env, "globex", "max@example.com")
	_, page, _ = other.do(http.MethodGet, "/dashboard/shipments", nil)
	if rows := shRows(page); !slices.Equal(rows, []string{theirs}) || strings.Contains(text(page), "Warehouse A") {
		t.Errorf("globex's list: %v\n%s", rows, text(page))
	}
	_, page, _ = other.do(http.MethodGet, "/dashboard/shipments?search="+tn, nil)
	if strings.Contains(page, ids[4]) {
		t.Error("another account's tracking number finds acme's shipment")
	}
}

func TestShipmentPageShowsParcelsTrackingAndLabel(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"pdftoppm", "zbarimg"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed (Debian packages poppler-utils and zbar-tools): %v", tool, err)
		}
	}
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	otherKey := env.NewKey("globex")
	ch := env.ActiveSandboxChannel(key, "Sandbox", nil)
	thermal := env.ActiveSandboxChannel(key, "Thermal", map[string]any{"defaultLabelFormat": "zpl"})

	cod := shBody(ch, "ORDER-7", 2)
	cod["cash_on_delivery_amount"], cod["cash_on_delivery_currency"] = 1250.5, "CZK"
	pdfID := shCreate(t, env, key, cod)
	zplID := shCreate(t, env, key, shBody(thermal, "THERMAL-1", 1))
	eplBody := shBody(thermal, "THERMAL-2", 1)
	eplBody["label_format"] = "epl"
	eplID := shCreate(t, env, key, eplBody)
	refusedBody := shBody(ch, "ORDER-8", 1)
	refusedBody["destination_address"].(map[string]any)["postal_code"] = "99999"
	refusedID := shCreate(t, env, key, refusedBody)
	pendingID := shCreate(t, env, key, shBody(ch, "DOWN-1", 1)) // the sandbox never books it
	theirs := shCreate(t, env, otherKey, shBody(env.ActiveSandboxChannel(otherKey, "Theirs", nil), "THEIRS-1", 1))

	sh := shAwaitCarrier(t, env, key, pdfID)
	tns := shTrackingNumbers(t, sh)
	if sh["status"] != "created" || len(tns) != 2 {
		t.Fatalf("booked shipment: %v", sh)
	}
	for _, id := range []string{zplID, eplID, refusedID} {
		shAwaitCarrier(t, env, key, id)
	}
	// Tracking parcels are made from shipment.created and checked at once;
	// the shipment lists them when their events come back (ADR 0018).
	var tracked []map[string]any
	apptest.Eventually(t, 90*time.Second, "both parcels tracked with a status update", func() bool {
		tps, _ := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments/" + pdfID, Key: key}).Data(t)["tracking_parcel_ids"].([]any)
		if len(tps) != 2 {
			return false
		}
		tracked = tracked[:0]
		for _, tp := range tps {
			d := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/tracking-parcels/" + tp.(string), Key: key}).Data(t)
			if updates, _ := d["status_updates"].([]any); len(updates) == 0 {
				return false
			}
			tracked = append(tracked, d)
		}
		return true
	})

	b := signIn(t, env, "acme", "jana@example.com")
	status, page, _ := b.do(http.MethodGet, "/dashboard/shipments/"+pdfID, nil)
	got := text(page)
	if status != http.StatusOK {
		t.Fatalf("shipment page: %d\n%s", status, got)
	}
	for _, want := range []string{"Shipment ORDER-7", pdfID, "Sandbox " + ch, "STANDARD_COD", sh["provider_shipment_id"].(string),
		"Acme s.r.o.", "Skladová 1", "11000 Praha, CZ", "Jana Nováková", "Dlouhá 12", "60200 Brno, CZ", "+420777888999",
		"1250.50 CZK, not collected yet", "30 × 20 × 10 CM", "2.5 KG", tns[0], tns[1], "Download label (PDF)"} {
		if !strings.Contains(got, want) {
			t.Errorf("the shipment page lacks %q:\n%s", want, got)
		}
	}
	for _, tp := range tracked {
		update := tp["status_updates"].([]any)[0].(map[string]any)
		section := regexp.MustCompile(`(?s)data-tracking-parcel-id="` + tp["id"].(string) + `">.*?</section>`).FindString(page)
		if section == "" || !strings.Contains(text(section), "Parcel "+tp["tracking_number"].(string)+" "+tp["status"].(string)) ||
			!strings.Contains(text(section), update["description"].(string)) || !strings.Contains(section, update["carrier_code"].(string)) {
			t.Errorf("tracking of %s (%s, %q) not shown:\n%s", tp["tracking_number"], tp["status"], update["description"], text(section))
		}
	}
	img := `<img class="label" src="/dashboard/shipments/` + pdfID + `/label.png"`
	if !strings.Contains(page, img) || !strings.Contains(page, `href="/dashboard/shipments/`+pdfID+`/label"`) {
		t.Errorf("no label preview or download link:\n%s", page)
	}

	// The download is the API's file.
	api := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments/" + pdfID + "/label?download=true", Key: key})
	status, file, res := b.do(http.MethodGet, "/dashboard/shipments/"+pdfID+"/label", nil)
	if status != http.StatusOK || file != string(api.Body) || !strings.HasPrefix(file, "%PDF-") ||
		res.Header.Get("Content-Type") != "application/pdf" || res.Header.Get("Content-Disposition") != `attachment; filename="`+pdfID+`.pdf"` {
		t.Errorf("download: %d, %d bytes (API %d), headers %v", status, len(file), len(api.Body), res.Header)
	}

	// The preview is a PNG of the first page, whose barcode reads as the
	// first parcel's tracking number.
	status, picture, res := b.do(http.MethodGet, "/dashboard/shipments/"+pdfID+"/label.png", nil)
	if status != http.StatusOK || res.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("label.png: %d %s %.200q", status, res.Header.Get("Content-Type"), picture)
	}
	decoded, err := png.Decode(strings.NewReader(picture))
	if err != nil {
		t.Fatalf("label.png does not decode: %v", err)
	}
	if bounds := decoded.Bounds(); bounds.Dx() < 300 || bounds.Dy() < 400 {
		t.Errorf("label.png is %v, want a readable 10×15 cm label", bounds)
	}
	dark := 0
	for y := decoded.Bounds().Min.Y; y < decoded.Bounds().Max.Y; y++ {
		for x := decoded.Bounds().Min.X; x < decoded.Bounds().Max.X; x++ {
			if r, g, bl, _ := decoded.At(x, y).RGBA(); r+g+bl < 3*0x8000 {
				dark++
			}
		}
	}
	if area := decoded.Bounds().Dx() * decoded.Bounds().Dy(); dark < area/50 {
		t.Errorf("label.png has %d dark pixels of %d: blank?", dark, area)
	}
	path := filepath.Join(t.TempDir(), "label.png")
	if err := os.WriteFile(path, []byte(picture), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("zbarimg", "--raw", "-q", path).Output()
	if err != nil || !slices.Contains(strings.Fields(string(out)), tns[0]) {
		t.Errorf("zbarimg read %q (%v) from label.png, want %s", out, err, tns[0])
	}

	// ZPL and EPL labels download as they are, and have no preview.
	for _, c := range []struct{ id, format, magic string }{{zplID, "zpl", "^XA"}, {eplID, "epl", "\nN"}} {
		status, page, _ := b.do(http.MethodGet, "/dashboard/shipments/"+c.id, nil)
		if status != http.StatusOK || !strings.Contains(text(page), "No preview for "+strings.ToUpper(c.format)+" labels") ||
			strings.Contains(page, "<img") || !strings.Contains(text(page), "Download label ("+strings.ToUpper(c.format)+")") {
			t.Errorf("%s shipment page: %d\n%s", c.format, status, text(page))
		}
		api := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments/" + c.id + "/label?download=true", Key: key})
		status, file, res := b.do(http.MethodGet, "/dashboard/shipments/"+c.id+"/label", nil)
		if status != http.StatusOK || file != string(api.Body) || !strings.Contains("\n"+file, c.magic) ||
			res.Header.Get("Content-Disposition") != `attachment; filename="`+c.id+`.`+c.format+`"` {
			t.Errorf("%s download: %d %v", c.format, status, res.Header)
		}
		status, msg, res := b.do(http.MethodGet, "/dashboard/shipments/"+c.id+"/label.png", nil)
		if status != http.StatusNotFound || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") ||
			!strings.Contains(msg, "No preview for "+strings.ToUpper(c.format)+" labels") {
			t.Errorf("%s label.png: %d %q", c.format, status, msg)
		}
	}

	// A refused shipment shows the carrier's errors and has no label.
	status, page, _ = b.do(http.MethodGet, "/dashboard/shipments/"+refusedID, nil)
	got = text(page)
	if status != http.StatusOK || !strings.Contains(got, "The carrier refused the shipment: destination_address.postal_code") ||
		!strings.Contains(got, "No label: the carrier refused the shipment") || strings.Contains(page, "<img") ||
		!strings.Contains(got, "No tracking: the carrier refused the shipment.") {
		t.Errorf("refused shipment page: %d\n%s", status, got)
	}

	// One the carrier has not booked says so, with no image; its label URLs
	// answer 404 with a short text.
	status, page, _ = b.do(http.MethodGet, "/dashboard/shipments/"+pendingID, nil)
	got = text(page)
	if status != http.StatusOK || !strings.Contains(got, "No label yet: the carrier has not booked the shipment") || strings.Contains(page, "<img") ||
		!strings.Contains(got, "waiting for the carrier") || !strings.Contains(got, "Tracking starts once the carrier has booked the shipment") {
		t.Errorf("pending shipment page: %d\n%s", status, got)
	}
	for _, id := range []string{pendingID, refusedID} {
		status, msg, res := b.do(http.MethodGet, "/dashboard/shipments/"+id+"/label.png", nil)
		if status != http.StatusNotFound || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") || !strings.HasPrefix(msg, "No label: The label is not available") {
			t.Errorf("label.png without a label: %d %q", status, msg)
		}
		if status, page, _ := b.do(http.MethodGet, "/dashboard/shipments/"+id+"/label", nil); status != http.StatusNotFound || !strings.Contains(text(page), "The label is not available") {
			t.Errorf("label download without a label: %d\n%s", status, text(page))
		}
	}

	// Another account's shipment, one that never existed and an id that
	// cannot be one are all 403, with nothing of the shipment.
	other := signIn(t, env, "globex", "max@example.com")
	for _, path := range []string{"/dashboard/shipments/" + pdfID, "/dashboard/shipments/" + pdfID + "/label", "/dashboard/shipments/" + pdfID + "/label.png"} {
		status, page, _ := other.do(http.MethodGet, path, nil)
		if status != http.StatusForbidden || !strings.Contains(text(page), "Your account has no shipment with that id") ||
			strings.Contains(page, "ORDER-7") || strings.Contains(page, "%PDF") || strings.Contains(page, tns[0]) {
			t.Errorf("globex reading %s: %d\n%.300s", path, status, page)
		}
	}
	for _, path := range []string{"/dashboard/shipments/" + theirs, "/dashboard/shipments/sh_01JD0000000000000000000000/label.png",
		"/dashboard/shipments/ch_01JD0000000000000000000000", "/dashboard/shipments/not%20an%20id!", "/dashboard/shipments/x%00y/label"} {
		status, page, _ := b.do(http.MethodGet, path, nil)
		if status != http.StatusForbidden || !strings.Contains(text(page), "Your account has no shipment with that id") {
			t.Errorf("acme reading %s: %d\n%s", path, status, text(page))
		}
	}
	if status, _, _ := other.do(http.MethodGet, "/dashboard/shipments/"+theirs, nil); status != http.StatusOK {
		t.Errorf("globex reading its own shipment: %d", status)
	}

	// Signed out, the pages and the files send to sign in.
	anonymous := newBrowser(t, env.URL())
	for _, path := range []string{"/dashboard/shipments", "/dashboard/shipments/" + pdfID + "/label", "/dashboard/shipments/" + pdfID + "/label.png"} {
		if status, body, res := anonymous.do(http.MethodGet, path, nil); status != http.StatusSeeOther || res.Header.Get("Location") != "/dashboard/sign-in" || bytes.Contains([]byte(body), []byte("%PDF")) {
			t.Errorf("signed out %s: %d", path, status)
		}
	}
}

// FuzzShipmentsQueryAndID sends any query string to the list and any id to
// the shipment's pages, signed in: never a 5xx, always HTML or, for the
// label URLs, the refusal.
func FuzzShipmentsQueryAndID(f *testing.F) {
	env := apptest.Start(f, shipd.InitializeApp, apptest.Quiet())
	env.NewKey("acme") // the account, with a rate limit no fuzzing reaches
	const email, password = "jana@example.com", "long enough password"
	if _, err := auth.NewStore(env.DB, clock.Real{}).CreateUser(context.Background(),
		auth.NewUserRequest{AccountName: "acme", Email: email, Password: password}); err != nil {
		f.Fatal(err)
	}
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Get(env.URL() + "/dashboard/sign-in")
	if err != nil {
		f.Fatal(err)
	}
	token := csrfField.FindStringSubmatch(readAll(res))
	res, err = client.PostForm(env.URL()+"/dashboard/sign-in", url.Values{"csrf_token": {token[1]}, "email": {email}, "password": {password}})
	if err != nil || res.StatusCode != http.StatusSeeOther {
		f.Fatalf("sign-in: %v %v", res, err)
	}
	readAll(res)
	for _, seed := range []string{
		"", "status=created", "status=lost", "page=0", "page=-1&per_page=0", "per_page=101", "page=99999999999999999999",
		"search=%00", "search=%ff%fe", "search=" + strings.Repeat("x", 300), "shipping_channel_id=ch_x&status=", "%zz=1",
		"search=SB012873907CZ", "search=a+b&search=c", "status=created&status=lost", "page=2&per_page=1",
	} {
		f.Add(seed, "sh_01JD0000000000000000000000")
	}
	f.Add("", "../../v1/shipments")
	f.Add("", "%2e%2e")
	f.Add("", "sh_"+strings.Repeat("x", 200))
	f.Add("", "label.png")
	f.Fuzz(func(t *testing.T, query, id string) {
		check := func(path string, html bool) {
			req, err := http.NewRequest(http.MethodGet, env.URL()+path, nil)
			if err != nil {
				return // not a URL a browser could send
			}
			res, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			readAll(res)
			if res.StatusCode >= 500 {
				t.Fatalf("%s: %d", path, res.StatusCode)
			}
			ct := res.Header.Get("Content-Type")
			if html && res.StatusCode != http.StatusMovedPermanently && !strings.HasPrefix(ct, "text/html") {
				t.Errorf("%s: %d %s, want the HTML page", path, res.StatusCode, ct)
			}
		}
		check("/dashboard/shipments?"+apptest.RawQuery(query), true)
		escaped := url.PathEscape(id)
		check("/dashboard/shipments/"+escaped, false)
		check("/dashboard/shipments/"+escaped+"/label", false)
		check("/dashboard/shipments/"+escaped+"/label.png", false)
	})
}

// A carrier that names no price shows as such, never as 0; the sandbox's
// price shows with its currency.
func TestShipmentPageShowsThePriceOrItsAbsence(t *testing.T) {
	t.Parallel()
	env := apptest.Start(t, shipd.InitializeApp)
	key := env.NewKey("acme")
	ch := env.ActiveSandboxChannel(key, "Sandbox", nil)
	unpriced := shCreate(t, env, key, shBody(ch, "UNPRICED-7", 1))
	priced := shCreate(t, env, key, shBody(ch, "ORDER-9", 1))
	for _, id := range []string{unpriced, priced} {
		if sh := shAwaitCarrier(t, env, key, id); sh["status"] != "created" {
			t.Fatalf("%s not booked: %v", id, sh)
		}
	}
	b := signIn(t, env, "acme", "jana@example.com")
	price := func(id string) string {
		status, page, _ := b.do(http.MethodGet, "/dashboard/shipments/"+id, nil)
		if status != http.StatusOK {
			t.Fatalf("shipment page %s: %d", id, status)
		}
		return text(regexp.MustCompile(`(?s)<dd id="shipment-price">.*?</dd>`).FindString(page))
	}
	if got := price(unpriced); got != "not given by the carrier" {
		t.Errorf("unpriced shipment's price reads %q", got)
	}
	// One parcel of 1.5 kg, STANDARD: 4.90 + 2 started kilograms × 0.80.
	if got := price(priced); got != "6.50 EUR" {
		t.Errorf("priced shipment's price reads %q, want 6.50 EUR", got)
	}
}

// A shipment the carrier holds whose label is being fetched says so; one
// whose label could not be had (the sandbox's label service down for the
// test, ten attempts on a moved clock) says why and offers to fetch it
// again, which makes it due again (ADR 0041).
func TestShipmentPageOffersToFetchALabelAgain(t *testing.T) {
	t.Parallel()
	clk := clock.NewManual(time.Now().UTC().Truncate(time.Second))
	env := apptest.Start(t, shipd.InitializeApp, apptest.WithClock(clk),
		apptest.WithConfig(func(c *config.Config) { c.SandboxFailLabelsFor = time.Hour }))
	key := env.NewKey("acme")
	ch := env.ActiveSandboxChannel(key, "Sandbox", nil)
	id := shCreate(t, env, key, shBody(ch, "ORDER-11", 1))
	b := signIn(t, env, "acme", "jana@example.com")
	page := func() string {
		status, page, _ := b.do(http.MethodGet, "/dashboard/shipments/"+id, nil)
		if status != http.StatusOK {
			t.Fatalf("shipment page: %d", status)
		}
		return page
	}
	apptest.Eventually(t, 30*time.Second, "the carrier holding the shipment", func() bool {
		return env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments/" + id, Key: key}).Data(t)["provider_shipment_id"] != nil
	})
	if p := page(); !strings.Contains(text(p), "its label is being fetched") || strings.Contains(p, "/label/retry") {
		t.Errorf("a label being fetched reads %q", text(regexp.MustCompile(`(?s)<p id="label-note">.*?</p>`).FindString(p)))
	}
	// Each label attempt waits out its pause on the manual clock.
	apptest.Eventually(t, 60*time.Second, "the label step giving up", func() bool {
		clk.Advance(10 * time.Minute)
		return env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/shipments/" + id, Key: key}).Data(t)["status"] == "created"
	})
	p := page()
	if !strings.Contains(text(p), "its label could not be fetched") || !strings.Contains(p, `action="/dashboard/shipments/`+id+`/label/retry"`) {
		t.Fatalf("a given-up label reads %q", text(regexp.MustCompile(`(?s)<section id="label".*`).FindString(p)))
	}
	status, _, res := b.post("/dashboard/shipments/"+id, "/dashboard/shipments/"+id+"/label/retry", nil)
	if status != http.StatusSeeOther || res.Header.Get("Location") != "/dashboard/shipments/"+id {
		t.Fatalf("asking again answered %d to %q", status, res.Header.Get("Location"))
	}
	if p := page(); !strings.Contains(text(p), "its label is being fetched") {
		t.Errorf("after asking again: %q", text(regexp.MustCompile(`(?s)<p id="label-note">.*?</p>`).FindString(p)))
	}
}
