package dashboard

import (
	"net/url"
	"testing"

	"shipd/platform/httpapi"
)

func TestPagerLinksKeepTheFilters(t *testing.T) {
	t.Parallel()
	from, to := 21, 40
	filters := url.Values{"status": {"created"}, "search": {""}, "per_page": {"20"}}
	p := newPager("/dashboard/shipments", filters, httpapi.Meta{CurrentPage: 2, LastPage: 3, PerPage: 20, Total: 45, From: &from, To: &to}, "shipment")
	for name, got := range map[string][2]string{
		"first":    {p.First, "/dashboard/shipments?per_page=20&status=created"},
		"previous": {p.Previous, "/dashboard/shipments?per_page=20&status=created"},
		"next":     {p.Next, "/dashboard/shipments?page=3&per_page=20&status=created"},
		"last":     {p.Last, "/dashboard/shipments?page=3&per_page=20&status=created"},
		"position": {p.Position(), "Shipments 21–40 of 45 · page 2 of 3"},
	} {
		if got[0] != got[1] {
			t.Errorf("%s: %q, want %q", name, got[0], got[1])
		}
	}
}

func TestPagerAtTheEnds(t *testing.T) {
	t.Parallel()
	one := 1
	only := newPager("/dashboard/webhooks", nil, httpapi.Meta{CurrentPage: 1, LastPage: 1, Total: 1, From: &one, To: &one}, "webhook subscription")
	if only.First != "" || only.Previous != "" || only.Next != "" || only.Last != "" {
		t.Errorf("a single page links elsewhere: %+v", only)
	}
	if got := only.Position(); got != "Webhook subscriptions 1–1 of 1 · page 1 of 1" {
		t.Errorf("position of a single page: %q", got)
	}
	// A page past the last (an old link): back to the last, nothing next.
	past := newPager("/dashboard/channels", nil, httpapi.Meta{CurrentPage: 9, LastPage: 3, Total: 5}, "channel")
	if past.Previous != "/dashboard/channels?page=3" || past.First != "/dashboard/channels" || past.Next != "" || past.Last != "" {
		t.Errorf("past the last page: %+v", past)
	}
	if got := past.Position(); got != "5 channels · page 9 of 3" {
		t.Errorf("position past the last page: %q", got)
	}
	if got := newPager("/dashboard/channels", nil, httpapi.Meta{CurrentPage: 2, LastPage: 1, Total: 1}, "channel").Position(); got != "1 channel · page 2 of 1" {
		t.Errorf("one item counted: %q", got)
	}
}
