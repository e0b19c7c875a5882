package main

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// seedShipmentList fills the list read model of the bench account with n
// shipments, as the projection would have, and its counters.
func seedShipmentList(ctx context.Context, s *service, n int) error {
	start := time.Now()
	_, err := s.db.ExecContext(ctx, `
		INSERT INTO shipments.shipment_list (id, account_id, seq, version, deleted, status, channel_id, reference_number, provider_shipment_id, created_at, record)
		SELECT id, $1, g, 2, false, status, $2, ref, psid, created, json_build_object(
			'id', id, 'reference_number', ref, 'shipping_channel_id', $2::text, 'provider_shipment_id', psid, 'status', status,
			'total_price', 6.5, 'currency', 'EUR', 'created_at', to_char(created AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
			'updated_at', to_char(created AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
		FROM (SELECT g, 'sh_BENCH' || lpad(g::text, 21, '0') AS id,
		             (ARRAY['pending','created','shipped','delivered','cancelled','returned'])[1 + g % 6] AS status,
		             'ORDER-' || lpad(g::text, 8, '0') AS ref, 'SBX' || lpad(g::text, 12, '0') AS psid,
		             timestamptz '2025-01-01' + make_interval(secs => g * 20) AS created
		      FROM generate_series(1, $3) g) src`, s.account, s.channel, n)
	if err != nil {
		return fmt.Errorf("seeding list: %w", err)
	}
	_, err = s.db.ExecContext(ctx, `
		INSERT INTO shipments.shipment_counts (account_id, status, channel_id, n)
		SELECT account_id, status, channel_id, count(*) FROM shipments.shipment_list WHERE account_id = $1 AND NOT deleted
		GROUP BY 1, 2, 3
		ON CONFLICT (account_id, status, channel_id) DO UPDATE SET n = excluded.n`, s.account)
	if err != nil {
		return fmt.Errorf("seeding counts: %w", err)
	}
	if _, err := s.db.ExecContext(ctx, `INSERT INTO shipments.shipment_list_seq (account_id, last_seq) VALUES ($1, $2)
		ON CONFLICT (account_id) DO UPDATE SET last_seq = excluded.last_seq`, s.account, n); err != nil {
		return err
	}
	if _, err := s.db.ExecContext(ctx, `VACUUM ANALYZE shipments.shipment_list`); err != nil {
		return err
	}
	logf("seeded %d shipments in %s", n, time.Since(start).Round(time.Second))
	return nil
}

type latency struct {
	name     string
	query    string
	p50, p99 time.Duration
	total    int
}

func benchShipmentList(ctx context.Context, s *service, rows, samples int, report *strings.Builder) error {
	if err := seedShipmentList(ctx, s, rows); err != nil {
		return err
	}
	cases := []latency{
		{name: "page 1", query: "?page=1"},
		{name: "page 5,000", query: "?page=5000"},
		{name: "status=delivered, page 1", query: "?status=delivered"},
		{name: "status=delivered, page 5,000", query: "?status=delivered&page=5000"},
		{name: "search (reference prefix)", query: "?search=" + url.QueryEscape("ORDER-0012")},
		{name: "search (provider shipment id)", query: "?search=SBX000000777777"},
	}
	for i := range cases {
		c := &cases[i]
		var took []time.Duration
		for range samples + samples/10 {
			t0 := time.Now()
			m, err := s.call("GET", "/v1/shipments"+c.query, "")
			if err != nil {
				return err
			}
			took = append(took, time.Since(t0))
			c.total = int(m["meta"].(map[string]any)["total"].(float64))
		}
		took = took[samples/10:] // warm-up
		slices.Sort(took)
		c.p50, c.p99 = took[len(took)/2], took[len(took)*99/100]
		logf("list %s: p50 %s p99 %s", c.name, c.p50, c.p99)
	}
	fmt.Fprintf(report, "## `GET /v1/shipments` on %d shipments of one account\n\n", rows)
	fmt.Fprintf(report, "%d sequential requests each after a warm-up; every answer includes `meta.total`. Target: p99 under 25 ms,\npage 5,000 no slower than 2x page 1.\n\n", samples)
	fmt.Fprintf(report, "| query | p50 | p99 | meta.total |\n|---|---|---|---|\n")
	for _, c := range cases {
		fmt.Fprintf(report, "| %s (`%s`) | %s | %s | %d |\n", c.name, c.query, ms(c.p50), ms(c.p99), c.total)
	}
	fmt.Fprintf(report, "\nPage 5,000 / page 1: p50 %.2fx, p99 %.2fx.\n\n",
		float64(cases[1].p50)/float64(cases[0].p50), float64(cases[1].p99)/float64(cases[0].p99))
	return nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }
