package fault_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"shipd/platform/fault"
)

func TestFieldErrorsEmptyIsNil(t *testing.T) {
	if err := (fault.FieldErrors{}).Err(); err != nil {
		t.Fatalf("Err() of no field errors = %v, want nil", err)
	}
	var none fault.FieldErrors
	if err := none.Err(); err != nil {
		t.Fatalf("Err() of a nil FieldErrors = %v, want nil", err)
	}
}

func TestFieldErrorsAddMergeErr(t *testing.T) {
	errs := fault.FieldErrors{}
	errs.Add("name", "is required")
	errs.Add("name", "must be at most 100 characters")
	errs.Merge("settings.", map[string][]string{
		"clientId": {"is required"},
		"mode":     {"must be one of: a, b"},
	})
	errs.Merge("", map[string][]string{"name": {"is taken"}})

	fe, ok := fault.As(errs.Err())
	if !ok {
		t.Fatalf("Err() = %T, want *fault.Error", errs.Err())
	}
	if fe.Kind != fault.KindValidation || fe.Code != "validation_failed" {
		t.Errorf("kind/code = %v/%q, want validation/validation_failed", fe.Kind, fe.Code)
	}
	want := map[string][]string{
		"name":              {"is required", "must be at most 100 characters", "is taken"},
		"settings.clientId": {"is required"},
		"settings.mode":     {"must be one of: a, b"},
	}
	if !reflect.DeepEqual(fe.Fields, want) {
		t.Errorf("fields = %v, want %v", fe.Fields, want)
	}

	// The error owns its map: recording more afterwards does not change it.
	errs.Add("later", "added after Err")
	if _, leaked := fe.Fields["later"]; leaked {
		t.Error("a field added after Err() shows up in the returned error")
	}
}

func TestAsAndIsThroughWrapping(t *testing.T) {
	base := fault.NotFound("Shipment")
	wrapped := fmt.Errorf("loading: %w", fmt.Errorf("repo: %w", base))

	fe, ok := fault.As(wrapped)
	if !ok || fe != base {
		t.Fatalf("As(wrapped) = %v, %v; want the original fault", fe, ok)
	}
	if !fault.Is(wrapped, fault.KindNotFound) {
		t.Error("Is(wrapped, NotFound) = false")
	}
	if fault.Is(wrapped, fault.KindConflict) {
		t.Error("Is(wrapped, Conflict) = true for a not-found fault")
	}

	plain := errors.New("disk on fire")
	if _, ok := fault.As(fmt.Errorf("x: %w", plain)); ok {
		t.Error("As found a fault in a plain error")
	}
	if fault.Is(plain, fault.KindNotFound) {
		t.Error("Is(plain error) = true")
	}
	if _, ok := fault.As(nil); ok {
		t.Error("As(nil) = true")
	}
}

func TestConstructors(t *testing.T) {
	tests := []struct {
		err  *fault.Error
		kind fault.Kind
		code string
		msg  string
	}{
		{fault.NotFound("Shipment"), fault.KindNotFound, "not_found", "Shipment not found"},
		{fault.Forbidden("no"), fault.KindForbidden, "forbidden", "no"},
		{fault.Conflict("label_not_available", "not yet"), fault.KindConflict, "label_not_available", "not yet"},
		{fault.Unavailable("carrier down"), fault.KindUnavailable, "provider_unavailable", "carrier down"},
		{fault.Invalid("bad body"), fault.KindInvalid, "invalid_request", "bad body"},
		{fault.Field("a.b", "is required"), fault.KindValidation, "validation_failed", "The given data was invalid."},
	}
	for _, tt := range tests {
		if tt.err.Kind != tt.kind || tt.err.Code != tt.code || tt.err.Message != tt.msg {
			t.Errorf("got {%v %q %q}, want {%v %q %q}", tt.err.Kind, tt.err.Code, tt.err.Message, tt.kind, tt.code, tt.msg)
		}
	}
}

func TestErrorText(t *testing.T) {
	if got := fault.NotFound("Shipment").Error(); got != "Shipment not found" {
		t.Errorf("Error() without fields = %q", got)
	}
	err := fault.Fields(map[string][]string{
		"zeta":      {"is required"},
		"alpha":     {"must be a string", "must not be empty"},
		"parcels.1": {"is wrong"},
	})
	want := "The given data was invalid. (alpha: must be a string, must not be empty; parcels.1: is wrong; zeta: is required)"
	for range 20 { // map order varies between runs; the text must not
		if got := err.Error(); got != want {
			t.Fatalf("Error() = %q\nwant      %q", got, want)
		}
	}
}
