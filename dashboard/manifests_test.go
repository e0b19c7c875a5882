package dashboard_test

import (
	"net/http"
	"net/url"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"shipd/platform/apptest"
)

var madeManifest = regexp.MustCompile(`^/dashboard/manifests\?made=(mnf_[A-Za-z0-9]+)$`)

// makeManifestThrough posts a make form from the page at from and answers the new
// manifest's id.
func makeManifestThrough(t *testing.T, b *browser, from string, form url.Values) string {
	t.Helper()
	status, page, res := b.post(from, "/dashboard/manifests", form)
	m := madeManifest.FindStringSubmatch(res.Header.Get("Location"))
	if status != http.StatusSeeOther || m == nil {
		t.Fatalf("making a manifest: %d to %q\n%s", status, res.Header.Get("Location"), text(page))
	}
	return m[1]
}

// Manifests are made of the shipments ticked, or of every created shipment
// on none yet, listed, and their document downloaded through the dashboard;
// no shipment goes on two, and ticking none makes none.
func TestManifestsAreMadeListedAndDownloaded(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"pdftoppm", "zbarimg"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed (Debian packages poppler-utils and zbar-tools): %v", tool, err)
		}
	}
	env, key, ch := dispEnv(t)
	first := dispShipment(t, env, key, ch, "HAND-1")
	second := dispShipment(t, env, key, ch, "HAND-2")
	third := dispShipment(t, env, key, ch, "HAND-3")
	b := signIn(t, env, "acme", "jana@example.com")

	status, page, _ := b.do(http.MethodGet, "/dashboard/manifests", nil)
	if got := text(page); status != http.StatusOK || !strings.Contains(got, "No manifests yet.") ||
		!strings.Contains(page, `<a href="/dashboard/manifests" aria-current="page">Manifests</a>`) ||
		!strings.Contains(page, `<option value="`+ch+`">Main warehouse (sandbox)</option>`) {
		t.Fatalf("the empty list with the make forms: %d\n%s", status, page)
	}

	choose := "/dashboard/manifests/new?shipping_channel_id=" + ch
	_, page, _ = b.do(http.MethodGet, choose, nil)
	if offered, ticked := dispOffered(page); !shSameSet(offered, []string{first, second, third}) || !shSameSet(ticked, offered) {
		t.Fatalf("offered %v, ticked %v; want the three created shipments, all ticked", offered, ticked)
	}

	// Ticking none is refused, never taken for every shipment.
	status, page, _ = b.post(choose, "/dashboard/manifests", url.Values{"shipping_channel_id": {ch}, "chosen": {"1"}})
	if got := text(page); status != http.StatusUnprocessableEntity || !strings.Contains(got, "No manifest was made.") ||
		!strings.Contains(got, "shipment_ids: must have at least 1 item") {
		t.Errorf("none ticked: %d\n%s", status, got)
	}
	if _, ticked := dispOffered(page); len(ticked) != 0 {
		t.Errorf("ticked %v after the refusal, want none as sent", ticked)
	}
	if n := dispCount(t, env, "manifests"); n != 0 {
		t.Fatalf("%d manifests after ticking none", n)
	}

	// The ones ticked.
	one := makeManifestThrough(t, b, choose, url.Values{"shipping_channel_id": {ch}, "chosen": {"1"}, "shipment_ids": {second}})
	_, page, _ = b.do(http.MethodGet, "/dashboard/manifests?made="+one, nil)
	if got := text(page); !strings.Contains(got, "Manifest made: 1 shipment with 1 parcel handed over.") {
		t.Errorf("after making one:\n%s", got)
	}
	// What is taken is read from the manifest list, a read model that
	// follows the manifest's event.
	apptest.Eventually(t, time.Minute, second+" no longer offered", func() bool {
		_, page, _ = b.do(http.MethodGet, choose, nil)
		offered, _ := dispOffered(page)
		return shSameSet(offered, []string{first, third})
	})
	// A shipment on a manifest already, ticked in a stale form: refused by its row.
	status, page, _ = b.post(choose, "/dashboard/manifests", url.Values{"shipping_channel_id": {ch}, "chosen": {"1"}, "shipment_ids": {first, second}})
	if row := dispRow(page, "data-shipment-id", second); status != http.StatusUnprocessableEntity || !strings.Contains(row, `<ul class="reasons"><li>`) {
		t.Errorf("a shipment on a manifest already: %d, its row %q\n%s", status, row, text(page))
	}

	// Every one on none yet, from the list.
	rest := makeManifestThrough(t, b, "/dashboard/manifests", url.Values{"shipping_channel_id": {ch}})
	m := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/manifests/" + rest, Key: key}).Data(t)
	if !shSameSet(toStrings(m["shipment_ids"]), []string{first, third}) || m["parcel_count"] != 2.0 {
		t.Fatalf("the manifest of the rest: %v", m)
	}
	status, page, _ = b.post("/dashboard/manifests", "/dashboard/manifests", url.Values{"shipping_channel_id": {ch}})
	if got := text(page); status != http.StatusUnprocessableEntity || !strings.Contains(got, "No manifest was made.") ||
		!strings.Contains(got, "shipment_ids: the channel has no created shipment that is not on a manifest") || !strings.Contains(got, "Make a manifest") {
		t.Errorf("nothing left: %d\n%s", status, got)
	}
	if n := dispCount(t, env, "manifests"); n != 2 {
		t.Errorf("%d manifests, want 2", n)
	}

	// Listed (a read model), with the download link.
	var row string
	apptest.Eventually(t, time.Minute, "both manifests listed", func() bool {
		_, page, _ = b.do(http.MethodGet, "/dashboard/manifests", nil)
		row = dispRow(page, "data-manifest-id", rest)
		return row != "" && dispRow(page, "data-manifest-id", one) != ""
	})
	// The shipments' ids fold away under their count (in the order the
	// API lists them: the clock stands still, so any).
	folded := regexp.MustCompile(`<details><summary>2</summary>.*?</details>`)
	if got := text(folded.ReplaceAllString(row, "[2 shipments]")); !strings.Contains(got, "2026-11-30 Main warehouse [2 shipments] 2 3 kg shipd's 2026-11-30 06:00:00 UTC Download PDF") ||
		!strings.Contains(row, `href="/dashboard/shipments/`+third+`"`) ||
		!strings.Contains(row, `href="/dashboard/manifests/`+rest+`/document" download`) || !strings.Contains(row, `href="/dashboard/shipments/`+first+`"`) {
		t.Errorf("the list's row: %s\n%s", got, row)
	}
	for _, c := range []struct {
		query string
		want  bool
	}{{"?date=2026-11-30&shipping_channel_id=" + ch, true}, {"?date=2026-12-01", false}} {
		status, page, _ := b.do(http.MethodGet, "/dashboard/manifests"+c.query, nil)
		if status != http.StatusOK || (dispRow(page, "data-manifest-id", rest) != "") != c.want {
			t.Errorf("%s: %d, listed %v, want %v", c.query, status, !c.want, c.want)
		}
	}
	if status, page, _ := b.do(http.MethodGet, "/dashboard/manifests?date=today", nil); status != http.StatusUnprocessableEntity ||
		!strings.Contains(text(page), "date: must be a date YYYY-MM-DD") {
		t.Errorf("a date the API refuses: %d\n%s", status, text(page))
	}

	// The document, as the API has it, to save; its barcodes are the parcels'.
	status, doc, res := b.do(http.MethodGet, "/dashboard/manifests/"+rest+"/document", nil)
	api := env.Do(apptest.Request{Method: http.MethodGet, Path: "/v1/manifests/" + rest + "/document", Key: key})
	if status != http.StatusOK || res.Header.Get("Content-Type") != "application/pdf" || doc != string(api.Body) ||
		!strings.HasPrefix(res.Header.Get("Content-Disposition"), "attachment") || res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("download: %d %q %q, %d bytes (the API's %d)", status, res.Header.Get("Content-Type"), res.Header.Get("Content-Disposition"), len(doc), len(api.Body))
	}
	want := slices.Concat(shTrackingNumbers(t, shAwaitCarrier(t, env, key, first)), shTrackingNumbers(t, shAwaitCarrier(t, env, key, third)))
	if got := dispBarcodes(t, []byte(doc)); !shSameSet(got, want) {
		t.Errorf("the document's barcodes %v, want the parcels' %v", got, want)
	}

	// Another account has none of it.
	env.NewKey("globex")
	theirs := signIn(t, env, "globex", "max@example.com")
	for _, id := range []string{rest, "mnf_01JD0000000000000000000000", "bad%20id"} {
		status, page, res := theirs.do(http.MethodGet, "/dashboard/manifests/"+id+"/document", nil)
		if status != http.StatusForbidden || !strings.Contains(text(page), "Your account has no manifest with that id") ||
			!strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
			t.Errorf("globex downloads %s: %d %s", id, status, res.Header.Get("Content-Type"))
		}
	}
	_, page, _ = theirs.do(http.MethodGet, "/dashboard/manifests", nil)
	if strings.Contains(page, rest) || !strings.Contains(text(page), "No manifests yet.") {
		t.Errorf("globex's list:\n%s", text(page))
	}
	_, page, _ = theirs.do(http.MethodGet, "/dashboard/manifests/new?shipping_channel_id="+ch, nil)
	if strings.Contains(page, "HAND-") {
		t.Errorf("globex is offered acme's shipments:\n%s", text(page))
	}
	status, _, _ = theirs.post("/dashboard/manifests", "/dashboard/manifests", url.Values{"shipping_channel_id": {ch}})
	if status < 400 || status >= 500 {
		t.Errorf("globex makes a manifest of acme's channel: %d", status)
	}
	if status, _, _ := b.do(http.MethodPost, "/dashboard/manifests", url.Values{"shipping_channel_id": {ch}, "csrf_token": {"forged"}}); status != http.StatusForbidden {
		t.Errorf("a forged form token: %d", status)
	}
	if n := dispCount(t, env, "manifests"); n != 2 {
		t.Errorf("%d manifests, want still 2", n)
	}
}
