package dashboard

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"shipd/platform/httpapi"
)

// pager is the position of a list page and the links to its neighbours,
// from the meta of the API's list answer. The links lead to the dashboard's
// page, not the API's, and keep the page's filters.
type pager struct {
	Meta  httpapi.Meta
	Items string // what the list holds, singular: "shipment"

	First, Previous, Next, Last string // "" where there is no such page
}

// newPager links the pages of the list at path (a dashboard path) with
// filters; an empty filter is left out of the links.
func newPager(path string, filters url.Values, meta httpapi.Meta, items string) pager {
	link := func(n int) string {
		page := ""
		if n > 1 {
			page = strconv.Itoa(n)
		}
		return listURL(path, filters, page)
	}
	p := pager{Meta: meta, Items: items}
	if meta.CurrentPage > 1 {
		// A page past the last (an old link) goes back to the last one.
		p.First, p.Previous = link(1), link(min(meta.CurrentPage-1, max(meta.LastPage, 1)))
	}
	if meta.CurrentPage < meta.LastPage {
		p.Next, p.Last = link(meta.CurrentPage+1), link(meta.LastPage)
	}
	return p
}

// Position is where the page stands: "Shipments 1–20 of 45 · page 1 of 3",
// or "0 shipments · page 1 of 1" for a page with nothing on it (the API
// sends no from/to then).
func (p pager) Position() string {
	m := p.Meta
	if m.From == nil || m.To == nil {
		counted := p.Items + "s"
		if m.Total == 1 {
			counted = p.Items
		}
		return fmt.Sprintf("%d %s · page %d of %d", m.Total, counted, m.CurrentPage, m.LastPage)
	}
	plural := p.Items + "s"
	return fmt.Sprintf("%s%s %d–%d of %d · page %d of %d", strings.ToUpper(plural[:1]), plural[1:],
		*m.From, *m.To, m.Total, m.CurrentPage, m.LastPage)
}

// listURL is the address of a list page, the dashboard's or the API's:
// path with the filters' first values and the page number, empty ones left
// out (the API's defaults apply).
func listURL(path string, filters url.Values, page string) string {
	q := url.Values{}
	for k, v := range filters {
		if len(v) > 0 && v[0] != "" {
			q.Set(k, v[0])
		}
	}
	if page != "" {
		q.Set("page", page)
	}
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}
