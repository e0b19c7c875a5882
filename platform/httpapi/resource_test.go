package httpapi_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"shipd/platform/clock"
	"shipd/platform/fault"
	"shipd/platform/httpapi"
	"shipd/platform/ids"
	"shipd/platform/usecase"
)

// getThing is a module's get query of one resource.
type getThing struct{ AccountID, ID string }

type thing struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// thingQueries answers getThing and records what it was asked.
type thingQueries struct {
	asked []getThing
	err   error
}

func (q *thingQueries) Handle(_ context.Context, g getThing) (thing, error) {
	q.asked = append(q.asked, g)
	return thing{ID: g.ID, Name: "read back"}, q.err
}

var thingCreatedAt = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func things(get *thingQueries) httpapi.Resource[getThing, thing] {
	return httpapi.Resource[getThing, thing]{
		Path: "/v1/things", Prefix: ids.Shipment, Name: "Thing", BaseURL: "https://api.example.com",
		Clock: clock.NewManual(thingCreatedAt), Get: get,
		Query: func(accountID, id string) getThing { return getThing{AccountID: accountID, ID: id} },
	}
}

// serveThing routes one request to handle under /v1/things/{id}, as a
// module's port is routed.
func serveThing(method, path, body string, handle http.HandlerFunc) *httptest.ResponseRecorder {
	router := httpapi.NewRouter()
	router.HandleFunc("/v1/things", handle)
	router.HandleFunc("/v1/things/{id}", handle)
	rec := httptest.NewRecorder()
	var req *http.Request
	if body == "" {
		req = httptest.NewRequest(method, path, nil)
	} else {
		req = httptest.NewRequest(method, path, strings.NewReader(body))
	}
	router.ServeHTTP(rec, req)
	return rec
}

// single reads a single-resource envelope with status.
func single(t *testing.T, rec *httptest.ResponseRecorder, status int) (data thing, message string) {
	t.Helper()
	if rec.Code != status {
		t.Fatalf("status = %d, want %d; body %s", rec.Code, status, rec.Body)
	}
	var body struct {
		Data    thing   `json:"data"`
		Message *string `json:"message"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("body is not JSON: %v: %s", err, rec.Body)
	}
	if body.Message == nil {
		t.Fatalf("no message in the single-resource answer %s", rec.Body)
	}
	return body.Data, *body.Message
}

var someID = ids.NewAt(ids.Shipment, thingCreatedAt)

func TestResourceWriteOne(t *testing.T) {
	get := &thingQueries{}
	res := things(get)
	rec := serveThing(http.MethodGet, "/v1/things/"+someID, "", func(w http.ResponseWriter, r *http.Request) {
		if id, ok := res.ID(w, r); ok {
			res.WriteOne(w, r, "acc_1", id)
		}
	})
	data, message := single(t, rec, http.StatusOK)
	// Every single resource's answer carries a message, a read's too (the
	// spec's envelope).
	if data != (thing{ID: someID, Name: "read back"}) || message != "Thing retrieved successfully" {
		t.Errorf("answer = %+v %q, want the thing read back and \"Thing retrieved successfully\"", data, message)
	}
	if want := []getThing{{AccountID: "acc_1", ID: someID}}; !reflect.DeepEqual(get.asked, want) {
		t.Errorf("get query asked %+v, want %+v", get.asked, want)
	}
}

// An id that cannot be one of the resource's names nothing: 404, and
// nothing is asked or run.
func TestResourceIDOfAnotherKindIsNotFound(t *testing.T) {
	for _, id := range []string{"nope", ids.NewAt(ids.ShippingChannel, thingCreatedAt), someID + "x"} {
		get := &thingQueries{}
		res := things(get)
		ran := false
		rec := serveThing(http.MethodGet, "/v1/things/"+url.PathEscape(id), "", func(w http.ResponseWriter, r *http.Request) {
			if id, ok := res.ID(w, r); ok {
				ran = true
				res.WriteOne(w, r, "acc_1", id)
			}
		})
		body := readError(t, rec, http.StatusNotFound)
		if body.Error.Code != "not_found" || !strings.Contains(body.Message, "Thing") {
			t.Errorf("%q: error = %q %q, want not_found naming the Thing", id, body.Error.Code, body.Message)
		}
		if ran || len(get.asked) > 0 {
			t.Errorf("%q: the handler ran on (%v) or the get query was asked (%v)", id, ran, get.asked)
		}
	}
}

func TestResourceWriteCreated(t *testing.T) {
	get := &thingQueries{}
	res := things(get)
	var made string
	var sent struct {
		Name string `json:"name"`
	}
	rec := serveThing(http.MethodPost, "/v1/things", `{"name":"x"}`, func(w http.ResponseWriter, r *http.Request) {
		if id, ok := res.ReadNew(w, r, &sent); ok {
			made = id
			res.WriteCreated(w, r, nil, "acc_1", id, "Thing created successfully")
		}
	})
	data, message := single(t, rec, http.StatusCreated)
	if sent.Name != "x" {
		t.Errorf("body read as %+v, want name x", sent)
	}
	if !ids.HasPrefix(made, ids.Shipment) || made[:len(someID)-16] != someID[:len(someID)-16] {
		t.Errorf("new id %q, want one of the prefix dated by the clock like %q", made, someID)
	}
	if data.ID != made || message != "Thing created successfully" {
		t.Errorf("answer = %+v %q, want the new thing read back with the message", data, message)
	}
	if loc, want := rec.Header().Get("Location"), "https://api.example.com/v1/things/"+made; loc != want {
		t.Errorf("Location = %q, want %q", loc, want)
	}
	if want := []getThing{{AccountID: "acc_1", ID: made}}; !reflect.DeepEqual(get.asked, want) {
		t.Errorf("get query asked %+v, want %+v", get.asked, want)
	}
}

// A refused command is answered as its error: no Location, nothing read back.
func TestResourceWriteCreatedRefused(t *testing.T) {
	get := &thingQueries{}
	res := things(get)
	rec := serveThing(http.MethodPost, "/v1/things", "", func(w http.ResponseWriter, r *http.Request) {
		res.WriteCreated(w, r, fault.Field("name", "is required"), "acc_1", someID, "Thing created successfully")
	})
	body := readError(t, rec, http.StatusUnprocessableEntity)
	if !reflect.DeepEqual(body.Errors, map[string][]string{"name": {"is required"}}) {
		t.Errorf("errors = %v, want the command's", body.Errors)
	}
	if loc := rec.Header().Get("Location"); loc != "" || len(get.asked) > 0 {
		t.Errorf("Location %q and get query asked %v, want neither", loc, get.asked)
	}
}

// The Location of a resource is under the address the connection came to
// when no public base URL is configured, never under the Host header.
func TestResourceLocationWithoutBaseURL(t *testing.T) {
	res := things(&thingQueries{})
	res.BaseURL = ""
	req := httptest.NewRequest(http.MethodPost, "http://evil.example/v1/things", nil)
	local := &net.TCPAddr{IP: net.ParseIP("::1"), Port: 8080}
	req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, local))
	if loc, want := res.Location(req, someID), "http://[::1]:8080/v1/things/"+someID; loc != want {
		t.Errorf("Location = %q, want %q", loc, want)
	}
}

func TestResourceReadNewRefusesBody(t *testing.T) {
	res := things(&thingQueries{})
	ran := false
	rec := serveThing(http.MethodPost, "/v1/things", `[1]`, func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Name string `json:"name"`
		}
		if _, ok := res.ReadNew(w, r, &body); ok {
			ran = true
		}
	})
	readError(t, rec, http.StatusBadRequest)
	if ran {
		t.Error("ReadNew said ok to a body that is no JSON object")
	}
}

func TestResourceWriteChanged(t *testing.T) {
	get := &thingQueries{}
	res := things(get)
	rec := serveThing(http.MethodPatch, "/v1/things/"+someID, `{"name":"y"}`, func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Name string `json:"name"`
		}
		id, ok := res.ReadEdit(w, r, &body)
		if !ok {
			return
		}
		if body.Name != "y" {
			t.Errorf("body read as %+v, want name y", body)
		}
		res.WriteChanged(w, r, nil, "acc_1", id, "Thing updated successfully")
	})
	data, message := single(t, rec, http.StatusOK)
	if data.ID != someID || message != "Thing updated successfully" {
		t.Errorf("answer = %+v %q, want the thing read back with the message", data, message)
	}
	if want := []getThing{{AccountID: "acc_1", ID: someID}}; !reflect.DeepEqual(get.asked, want) {
		t.Errorf("get query asked %+v, want %+v", get.asked, want)
	}
	if rec.Header().Get("Location") != "" {
		t.Error("a change answered with a Location")
	}
}

// A refused command, or a read back that fails, is answered as its error.
func TestResourceWriteChangedErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		command, read error
		status        int
		asked         int
	}{
		"command refused": {command: fault.Forbidden("This thing belongs to another account."), status: http.StatusForbidden},
		"read back fails": {read: fault.NotFound("Thing"), status: http.StatusNotFound, asked: 1},
	} {
		get := &thingQueries{err: tc.read}
		res := things(get)
		rec := serveThing(http.MethodPost, "/v1/things/"+someID, "", func(w http.ResponseWriter, r *http.Request) {
			res.WriteChanged(w, r, tc.command, "acc_1", someID, "Thing updated successfully")
		})
		readError(t, rec, tc.status)
		if len(get.asked) != tc.asked {
			t.Errorf("%s: get query asked %d times, want %d", name, len(get.asked), tc.asked)
		}
	}
}

// ReadEdit judges the id before the body: an id that names nothing is a
// 404 whatever was sent.
func TestResourceReadEdit(t *testing.T) {
	for name, tc := range map[string]struct {
		id, body string
		status   int
	}{
		"id of another kind, bad body": {id: "nope", body: `[`, status: http.StatusNotFound},
		"bad body":                     {id: someID, body: `[`, status: http.StatusBadRequest},
		"wrong type":                   {id: someID, body: `{"name":1}`, status: http.StatusUnprocessableEntity},
	} {
		res := things(&thingQueries{})
		ran := false
		rec := serveThing(http.MethodPatch, "/v1/things/"+tc.id, tc.body, func(w http.ResponseWriter, r *http.Request) {
			var body struct {
				Name string `json:"name"`
			}
			if _, ok := res.ReadEdit(w, r, &body); ok {
				ran = true
			}
		})
		readError(t, rec, tc.status)
		if ran {
			t.Errorf("%s: ReadEdit said ok", name)
		}
	}
}

func TestWriteDeleted(t *testing.T) {
	rec := serveThing(http.MethodDelete, "/v1/things/"+someID, "", func(w http.ResponseWriter, r *http.Request) {
		httpapi.WriteDeleted(w, r, nil)
	})
	if rec.Code != http.StatusNoContent || rec.Body.Len() != 0 {
		t.Errorf("answer = %d %q, want 204 without a body", rec.Code, rec.Body)
	}
	rec = serveThing(http.MethodDelete, "/v1/things/"+someID, "", func(w http.ResponseWriter, r *http.Request) {
		httpapi.WriteDeleted(w, r, fault.Conflict("in_use", "The thing is in use."))
	})
	if body := readError(t, rec, http.StatusConflict); body.Message != "The thing is in use." {
		t.Errorf("message = %q, want the command's", body.Message)
	}
}

// listThings is a module's list query.
type listThings struct {
	Colour        string
	Offset, Limit int
}

type thingLists struct{ asked []listThings }

func (l *thingLists) Handle(_ context.Context, q listThings) (usecase.Page[thing], error) {
	l.asked = append(l.asked, q)
	return usecase.Page[thing]{Records: []thing{{ID: someID}}, Total: 41}, nil
}

func listFiltered(lists *thingLists, query string) *httptest.ResponseRecorder {
	return serveThing(http.MethodGet, "/v1/things?"+query, "", func(w http.ResponseWriter, r *http.Request) {
		httpapi.WriteFiltered(w, r, lists, "https://api.example.com", func(params url.Values, page httpapi.Page, errs fault.FieldErrors) listThings {
			colour := params.Get("colour")
			if colour != "" && colour != "red" {
				errs.Add("colour", "must be red")
			}
			return listThings{Colour: colour, Offset: page.Offset(), Limit: page.PerPage}
		})
	})
}

func TestWriteFiltered(t *testing.T) {
	lists := &thingLists{}
	rec := listFiltered(lists, "colour=red&page=2&per_page=10")
	if rec.Code != http.StatusOK {
		t.Fatalf("status = %d, want 200; body %s", rec.Code, rec.Body)
	}
	if want := []listThings{{Colour: "red", Offset: 10, Limit: 10}}; !reflect.DeepEqual(lists.asked, want) {
		t.Errorf("list query asked %+v, want %+v", lists.asked, want)
	}
	var body struct {
		Data  []thing      `json:"data"`
		Meta  httpapi.Meta `json:"meta"`
		Links struct {
			Next *string `json:"next"`
		} `json:"links"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("body is not JSON: %v: %s", err, rec.Body)
	}
	if len(body.Data) != 1 || body.Meta.Total != 41 || body.Meta.CurrentPage != 2 || body.Meta.LastPage != 5 {
		t.Errorf("list = %+v, want one thing of 41 on page 2 of 5", body)
	}
	if body.Links.Next == nil || !strings.HasPrefix(*body.Links.Next, "https://api.example.com/v1/things?") ||
		!strings.Contains(*body.Links.Next, "colour=red") || !strings.Contains(*body.Links.Next, "page=3") {
		t.Errorf("next = %v, want page 3 under the base URL keeping the filter", body.Links.Next)
	}
}

// A filter's problems and the page's are named in one answer, and the
// query is not asked.
func TestWriteFilteredNamesEveryProblem(t *testing.T) {
	lists := &thingLists{}
	body := readError(t, listFiltered(lists, "colour=blue&per_page=0"), http.StatusUnprocessableEntity)
	want := map[string][]string{"colour": {"must be red"}, "per_page": {"must be an integer from 1 to 100"}}
	if !reflect.DeepEqual(body.Errors, want) {
		t.Errorf("errors = %v, want %v", body.Errors, want)
	}
	if len(lists.asked) > 0 {
		t.Errorf("list query asked %+v despite the problems", lists.asked)
	}
}
