package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lib/pq"

	"shipd/adapters/labels"
	"shipd/modules/dispatch/adapters"
	"shipd/modules/dispatch/domain"
	"shipd/platform/carrier"
	"shipd/platform/config"
)

// manifestRuns is how many timed manifests of each form the manifest part
// makes (-manifest-runs); manifestShipments how many shipments each hands
// over (-manifest-shipments).
var (
	manifestRuns      = 5
	manifestShipments = 1000
)

// manifestTarget is issue 33's: a manifest of 1,000 shipments answered with
// its document rendered within it.
const manifestTarget = 2 * time.Second

// manifestForm is one way of asking for a manifest: every created shipment
// of the channel on no manifest (no shipment_ids, the end of the day's
// handover), or the shipments named.
type manifestForm struct {
	name  string
	named bool
	runs  []manifestRun
}

// manifestRun is one POST /v1/manifests and the same document rendered
// alone right after it.
type manifestRun struct {
	post, render       time.Duration // wall time
	postCPU, renderCPU time.Duration // the bench process's CPU time
	pages, bytes       int
}

// manifestRecord is what the bench reads of the API's manifest record.
type manifestRecord struct {
	ID            string   `json:"id"`
	Date          string   `json:"date"`
	ShipmentIDs   []string `json:"shipment_ids"`
	ShipmentCount int      `json:"shipment_count"`
	ParcelCount   int      `json:"parcel_count"`
	Document      string   `json:"document"`
}

// benchManifest times POST /v1/manifests of manifestShipments shipments
// booked with the sandbox carrier (whose handover document shipd draws),
// each against labels.RenderHandover of the same document alone in the
// same process right after it; the rendered bytes must be the document the
// manifest stored, so the two measure the same PDF.
func benchManifest(ctx context.Context, api *service, dsn string, report *strings.Builder) error {
	n := manifestShipments
	forms := []*manifestForm{
		{name: "the channel's every created shipment (no `shipment_ids`)"},
		{name: fmt.Sprintf("%d named in `shipment_ids`", n), named: true},
	}
	// A channel of n shipments for each manifest: a warm-up, then each form's
	// runs in turn, so that the forms share whatever the machine does.
	channels := make([]string, 1+len(forms)*manifestRuns)
	for i := range channels {
		ch, err := api.call("POST", "/v1/shipping-channels", fmt.Sprintf(`{"name":"bench manifest %d","provider":"sandbox","settings":{"clientId":"a","clientSecret":"b"}}`, i))
		if err != nil {
			return err
		}
		channels[i] = ch["data"].(map[string]any)["id"].(string)
		if _, err := api.call("POST", "/v1/shipping-channels/"+channels[i]+"/validate", ""); err != nil {
			return err
		}
	}
	carrierName, err := providerName(api, "sandbox")
	if err != nil {
		return err
	}

	parked, release, err := parkBookings(ctx, api)
	if err != nil {
		return err
	}
	defer release()
	setupStart := time.Now()
	shipmentsOf := make([][]string, len(channels))
	var all []string
	for i, ch := range channels {
		ids, _, err := createShipments(api, ch, 4<<40+int64(i*n), n)
		if err != nil {
			return err
		}
		shipmentsOf[i], all = ids, append(all, ids...)
	}
	created := time.Since(setupStart)
	logf("manifest: %d shipments created through the API in %s (%d others parked)", len(all), created.Round(time.Millisecond), parked)
	booked, err := bookAll(ctx, api, dsn, all)
	if err != nil {
		return err
	}
	known, err := awaitDispatchKnows(ctx, api, all)
	if err != nil {
		return err
	}
	logf("manifest: booked in %s, known to dispatch %s later", booked.Round(time.Millisecond), known.Round(time.Millisecond))

	reader := adapters.NewShipmentReader(api.db)
	measure := func(channel, name string, ids []string, named bool) (manifestRun, error) {
		if _, err := awaitNoEventLag(ctx, api); err != nil {
			return manifestRun{}, err
		}
		body := fmt.Sprintf(`{"shipping_channel_id":%q}`, channel)
		if named {
			list, _ := json.Marshal(ids)
			body = fmt.Sprintf(`{"shipping_channel_id":%q,"shipment_ids":%s}`, channel, list)
		}
		var run manifestRun
		cpu, t0 := processCPU(), time.Now()
		status, raw, err := api.do("POST", "/v1/manifests", body)
		run.post, run.postCPU = time.Since(t0), processCPU()-cpu
		if err != nil {
			return run, err
		}
		if status != 201 {
			return run, fmt.Errorf("POST /v1/manifests: %d %s", status, raw)
		}
		var answer struct {
			Data manifestRecord `json:"data"`
		}
		if err := json.Unmarshal(raw, &answer); err != nil {
			return run, err
		}
		m := answer.Data
		if err := checkManifest(m, ids, named); err != nil {
			return run, err
		}
		status, stored, err := api.do("GET", "/v1/manifests/"+m.ID+"/document", "")
		if err != nil {
			return run, err
		}
		if status != 200 {
			return run, fmt.Errorf("GET /v1/manifests/%s/document: %d %s", m.ID, status, stored)
		}
		d, err := handoverOf(ctx, reader, m, carrierName, name)
		if err != nil {
			return run, err
		}
		cpu, t0 = processCPU(), time.Now()
		pdf, err := labels.RenderHandover(d)
		run.render, run.renderCPU = time.Since(t0), processCPU()-cpu
		if err != nil {
			return run, err
		}
		if !bytes.Equal(pdf, stored) {
			return run, fmt.Errorf("manifest %s: its stored document (%d bytes) is not the one rendered alone (%d bytes)", m.ID, len(stored), len(pdf))
		}
		run.pages, run.bytes = bytes.Count(pdf, []byte("/Type /Page ")), len(pdf)
		return run, nil
	}
	if _, err := measure(channels[0], "bench manifest 0", shipmentsOf[0], false); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	stopProfile, err := profilePhase("manifest")
	if err != nil {
		return err
	}
	loadBefore := loadAverage()
	for i := range manifestRuns {
		for k, f := range forms {
			c := 1 + i*len(forms) + k
			run, err := measure(channels[c], fmt.Sprintf("bench manifest %d", c), shipmentsOf[c], f.named)
			if err != nil {
				stopProfile()
				return fmt.Errorf("%s, run %d: %w", f.name, i+1, err)
			}
			logf("manifest: %s: POST %s (CPU %s), rendered alone %s (CPU %s): %.2fx", f.name, ms(run.post), ms(run.postCPU),
				ms(run.render), ms(run.renderCPU), float64(run.post)/float64(run.render))
			f.runs = append(f.runs, run)
		}
	}
	stopProfile()
	loadAfter := loadAverage()

	doc := forms[0].runs[0]
	fmt.Fprintf(report, "## `POST /v1/manifests` of %d shipments against its document rendered alone\n\n", n)
	fmt.Fprintf(report, "%d shipments (one parcel each, no cash on delivery) on each of %d sandbox channels, created through the API of the\n", n, len(channels))
	fmt.Fprintf(report, "instance that books nothing (%d in %.1f s), booked by a second instance at the default `BOOKING_CONCURRENCY` against\n", len(all), created.Seconds())
	fmt.Fprintf(report, "the sandbox carrier (%.1f s; other parts' unbooked shipments, %d, held back meanwhile), then waited for until the\n", booked.Seconds(), parked)
	fmt.Fprintf(report, "dispatch module's copy showed every one created (%.1f s more): no row is seeded. The sandbox makes no manifest,\n", known.Seconds())
	fmt.Fprintf(report, "so shipd draws its handover document (%d pages, %d bytes) before it answers 201. Each manifest takes one\n", doc.pages, doc.bytes)
	fmt.Fprintf(report, "channel's shipments, one request at a time on a settled system (every event handled), a warm-up first; %d runs of\n", manifestRuns)
	fmt.Fprintf(report, "each form, the forms taking turns. Right after each request the bench renders the same document alone\n")
	fmt.Fprintf(report, "(`labels.RenderHandover` in the same process, built from the dispatch module's copy of the shipments, no\n")
	fmt.Fprintf(report, "database, no HTTP) and checks its bytes are the ones the manifest stored. CPU is the bench process's (shipd\n")
	fmt.Fprintf(report, "in-process and the client; PostgreSQL not counted). Load average %s before the runs, %s after. Target: under %.0f s.\n\n",
		loadBefore, loadAfter, manifestTarget.Seconds())
	fmt.Fprintf(report, "| manifest of | POST median | POST max | CPU median | rendered alone median | alone max | alone CPU median | POST / alone (medians) |\n|---|---|---|---|---|---|---|---|\n")
	for _, f := range forms {
		post, postCPU, render, renderCPU := sortedOf(f.runs, func(r manifestRun) time.Duration { return r.post }),
			sortedOf(f.runs, func(r manifestRun) time.Duration { return r.postCPU }),
			sortedOf(f.runs, func(r manifestRun) time.Duration { return r.render }),
			sortedOf(f.runs, func(r manifestRun) time.Duration { return r.renderCPU })
		met := "met"
		if post[len(post)-1] >= manifestTarget {
			met = "missed"
		}
		fmt.Fprintf(report, "| %s | **%s** (%s) | %s | %s | %s | %s | %s | **%.2fx** |\n", f.name, ms(pct(post, 50)), met, ms(post[len(post)-1]),
			ms(pct(postCPU, 50)), ms(pct(render, 50)), ms(render[len(render)-1]), ms(pct(renderCPU, 50)),
			float64(pct(post, 50))/float64(pct(render, 50)))
		logf("manifest: %s: POST median %s max %s; alone median %s: %.2fx", f.name, ms(pct(post, 50)), ms(post[len(post)-1]),
			ms(pct(render, 50)), float64(pct(post, 50))/float64(pct(render, 50)))
	}
	fmt.Fprintf(report, "\nEvery run, POST / alone: ")
	for k, f := range forms {
		var ratios []string
		for _, r := range f.runs {
			ratios = append(ratios, fmt.Sprintf("%s / %s", ms(r.post), ms(r.render)))
		}
		if k > 0 {
			fmt.Fprintf(report, "; ")
		}
		fmt.Fprintf(report, "%s: %s", strings.SplitN(f.name, " (", 2)[0], strings.Join(ratios, ", "))
	}
	fmt.Fprintf(report, ".\n\n")
	return nil
}

// sortedOf is one figure of every run, sorted.
func sortedOf(runs []manifestRun, figure func(manifestRun) time.Duration) []time.Duration {
	out := make([]time.Duration, len(runs))
	for i, r := range runs {
		out[i] = figure(r)
	}
	slices.Sort(out)
	return out
}

// checkManifest refuses an answer that is not a manifest of exactly ids, one
// parcel each, with shipd's document; named ones listed in ids' order.
func checkManifest(m manifestRecord, ids []string, named bool) error {
	got := m.ShipmentIDs
	if !named {
		got, ids = slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(ids))
	}
	switch {
	case !slices.Equal(got, ids):
		return fmt.Errorf("manifest %s lists %d shipments, not the %d asked for", m.ID, len(m.ShipmentIDs), len(ids))
	case m.ShipmentCount != len(ids) || m.ParcelCount != len(ids):
		return fmt.Errorf("manifest %s counts %d shipments and %d parcels, not %d of each", m.ID, m.ShipmentCount, m.ParcelCount, len(ids))
	case m.Document != "shipd":
		return fmt.Errorf("manifest %s has the document of %q, not shipd's", m.ID, m.Document)
	}
	return nil
}

// handoverOf is the document the module draws for manifest m, built here
// from the dispatch module's copy of its shipments: its sender and origin
// are its first shipment's, its rows the shipments in the manifest's order.
func handoverOf(ctx context.Context, reader *adapters.ShipmentReader, m manifestRecord, carrierName, channelName string) (labels.HandoverDocument, error) {
	found, err := reader.Find(ctx, m.ShipmentIDs)
	if err != nil {
		return labels.HandoverDocument{}, err
	}
	date, ok := domain.ParseDate(m.Date)
	if !ok || len(found) != len(m.ShipmentIDs) {
		return labels.HandoverDocument{}, fmt.Errorf("manifest %s: date %q, %d of its %d shipments known", m.ID, m.Date, len(found), len(m.ShipmentIDs))
	}
	first := found[m.ShipmentIDs[0]]
	d := labels.HandoverDocument{Carrier: carrierName, ChannelName: channelName, ManifestID: m.ID, Date: date,
		Sender: handoverParty(first.Sender, first.Origin)}
	for _, id := range m.ShipmentIDs {
		sh := found[id]
		hs := labels.HandoverShipment{Reference: sh.Reference, Recipient: handoverParty(sh.Recipient, sh.Destination), COD: sh.COD}
		for i, p := range sh.Parcels {
			hs.Parcels = append(hs.Parcels, labels.HandoverParcel{TrackingNumber: sh.TrackingNumbers[i], WeightKG: p.WeightKG()})
		}
		d.Shipments = append(d.Shipments, hs)
	}
	return d, nil
}

// handoverParty is a contact at an address as the document prints it.
func handoverParty(c carrier.Contact, a carrier.Address) labels.Party {
	name := strings.TrimSpace(c.FirstName + " " + c.LastName)
	return labels.Party{Name: name, Company: c.CompanyName, Street: a.StreetName, HouseNumber: a.HouseNumber,
		PostalCode: a.PostalCode, City: a.CityName, CountryCode: a.CountryCode, Phone: c.Phone}
}

// providerName is the name GET /v1/providers gives the provider code.
func providerName(s *service, code string) (string, error) {
	m, err := s.call("GET", "/v1/providers", "")
	if err != nil {
		return "", err
	}
	list, _ := m["data"].([]any)
	for _, p := range list {
		if p, ok := p.(map[string]any); ok && p["code"] == code {
			return p["name"].(string), nil
		}
	}
	return "", fmt.Errorf("GET /v1/providers names no %s", code)
}

// bookAll starts an instance at the default BOOKING_CONCURRENCY, waits
// until it has booked every one of ids, stops it and returns how long that
// took; every one must then be created with its label.
func bookAll(ctx context.Context, api *service, dsn string, ids []string) (time.Duration, error) {
	concurrency, err := defaultBookingConcurrency()
	if err != nil {
		return 0, err
	}
	start := time.Now()
	booker, err := startService(ctx, dsn, func(c *config.Config) { c.BookingConcurrency = concurrency })
	if err != nil {
		return 0, err
	}
	for {
		var due int
		if err := api.db.GetContext(ctx, &due, `SELECT count(*) FROM shipments.shipments WHERE id = ANY($1) AND booking_due`, pq.Array(ids)); err != nil {
			booker.stop()
			return 0, err
		}
		if due == 0 {
			break
		}
		if time.Since(start) > 10*time.Minute || ctx.Err() != nil {
			booker.stop()
			return 0, fmt.Errorf("%d of %d shipments still await their booking after %s", due, len(ids), time.Since(start).Round(time.Second))
		}
		time.Sleep(50 * time.Millisecond)
	}
	took := time.Since(start)
	booker.stop()
	var booked int
	if err := api.db.GetContext(ctx, &booked, `SELECT count(*) FROM shipments.shipments s WHERE s.id = ANY($1) AND s.status = 'created'
		AND EXISTS (SELECT FROM shipments.labels l WHERE l.shipment_id = s.id)`, pq.Array(ids)); err != nil {
		return 0, err
	}
	if booked != len(ids) {
		return 0, fmt.Errorf("%d of %d shipments were booked with a label", booked, len(ids))
	}
	return took, nil
}

// awaitDispatchKnows waits until the dispatch module's copy shows every one
// of ids created (it follows the shipments stream) and returns how long
// that took.
func awaitDispatchKnows(ctx context.Context, api *service, ids []string) (time.Duration, error) {
	start := time.Now()
	for {
		var known int
		if err := api.db.GetContext(ctx, &known, `SELECT count(*) FROM dispatch.shipments WHERE id = ANY($1) AND status = 'created' AND NOT deleted`,
			pq.Array(ids)); err != nil {
			return 0, err
		}
		if known == len(ids) {
			return time.Since(start), nil
		}
		if time.Since(start) > 5*time.Minute || ctx.Err() != nil {
			return 0, fmt.Errorf("the dispatch module knows %d of %d shipments created after %s", known, len(ids), time.Since(start).Round(time.Second))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
