package httpapi

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"shipd/platform/fault"
)

// Page is a validated page request.
type Page struct {
	Number  int // 1-based
	PerPage int
}

// Offset is the number of items before the page.
func (p Page) Offset() int { return (p.Number - 1) * p.PerPage }

// MaxPage bounds page numbers so offsets stay sane.
const MaxPage = 1_000_000

// ParsePage reads page (default 1) and per_page (default 20, 1..100).
func ParsePage(q url.Values) (Page, error) {
	errs := fault.FieldErrors{}
	p := Page{Number: 1, PerPage: 20}
	if v := q.Get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxPage {
			errs.Add("page", "must be an integer from 1 to 1000000")
		} else {
			p.Number = n
		}
	}
	if v := q.Get("per_page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			errs.Add("per_page", "must be an integer from 1 to 100")
		} else {
			p.PerPage = n
		}
	}
	return p, errs.Err()
}

// Meta is the pagination block of a list answer.
type Meta struct {
	CurrentPage int    `json:"current_page"`
	From        *int   `json:"from"`
	LastPage    int    `json:"last_page"`
	Path        string `json:"path"`
	PerPage     int    `json:"per_page"`
	To          *int   `json:"to"`
	Total       int    `json:"total"`
}

// Links are the absolute addresses of neighbouring pages.
type Links struct {
	First string  `json:"first"`
	Last  string  `json:"last"`
	Prev  *string `json:"prev"`
	Next  *string `json:"next"`
}

// List is the envelope of a list answer.
type List struct {
	Data  any   `json:"data"`
	Meta  Meta  `json:"meta"`
	Links Links `json:"links"`
}

// NewList builds the list envelope; items holds the page's count items of
// total. Links keep the request's filters. from/to are null on an empty page.
func NewList(r *http.Request, baseURL string, page Page, items any, count, total int) List {
	last := max(1, (total+page.PerPage-1)/page.PerPage)
	path := baseURL + r.URL.Path
	link := func(n int) string {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(n))
		q.Set("per_page", strconv.Itoa(page.PerPage))
		return path + "?" + q.Encode()
	}
	meta := Meta{CurrentPage: page.Number, LastPage: last, Path: path, PerPage: page.PerPage, Total: total}
	if count > 0 {
		from, to := page.Offset()+1, page.Offset()+count
		meta.From, meta.To = &from, &to
	}
	links := Links{First: link(1), Last: link(last)}
	if page.Number > 1 {
		prev := link(min(page.Number-1, last))
		links.Prev = &prev
	}
	if page.Number < last {
		next := link(page.Number + 1)
		links.Next = &next
	}
	return List{Data: items, Meta: meta, Links: links}
}

// BaseURL returns configured when set, else the request's Origin base: the
// scheme and the address the connection came to, never the Host header
// (ADR 0045).
func BaseURL(r *http.Request, configured string) string {
	if configured != "" {
		return configured
	}
	return RequestOrigin(r).Base
}

// TextParam reads the query parameter name for a filter compared in SQL.
// Text that PostgreSQL cannot hold (not UTF-8, or with NUL) can match
// nothing and would fail the query, so it adds a field error to errs.
func TextParam(q url.Values, name string, errs fault.FieldErrors) string {
	v := q.Get(name)
	if !StorableText(v) {
		errs.Add(name, "must be UTF-8 text without NUL characters")
	}
	return v
}

// StorableText reports whether PostgreSQL can hold s as text: UTF-8 and
// without NUL. Any other text would fail the query it is sent in.
func StorableText(s string) bool { return utf8.ValidString(s) && !strings.ContainsRune(s, 0) }

// PageParams reads page and per_page like ParsePage, adding their problems
// to errs so a list handler reports them with its filters' problems.
func PageParams(q url.Values, errs fault.FieldErrors) Page {
	page, err := ParsePage(q)
	if fe, ok := fault.As(err); ok {
		errs.Merge("", fe.Fields)
	}
	return page
}
