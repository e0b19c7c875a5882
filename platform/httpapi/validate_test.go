package httpapi_test

import (
	"reflect"
	"testing"

	"shipd/platform/httpapi"
)

type validateParcel struct {
	WeightAmount float64 `json:"weight_amount" validate:"gt=0,max=1000"`
	Reference    string  `json:"reference,omitempty" validate:"max=5"`
}

type validateRequest struct {
	Name    string           `json:"name" validate:"required"`
	Kind    string           `json:"kind" validate:"required,oneof=standard express"`
	Note    string           `json:"note" validate:"max=10"`
	Email   string           `json:"email,omitempty" validate:"omitempty,email"`
	Parcels []validateParcel `json:"parcels" validate:"required,min=1,dive"`
}

func TestValidateValid(t *testing.T) {
	req := validateRequest{Name: "n", Kind: "express", Parcels: []validateParcel{{WeightAmount: 1}}}
	errs := httpapi.Validate(req)
	if len(errs) != 0 || errs.Err() != nil {
		t.Errorf("Validate(valid) = %v", errs)
	}
}

func TestValidateDottedJSONPaths(t *testing.T) {
	req := &validateRequest{
		Kind:  "overnight",
		Note:  "far more than ten characters",
		Email: "not-an-email",
		Parcels: []validateParcel{
			{WeightAmount: 1, Reference: "too-long"},
			{WeightAmount: 0},
			{WeightAmount: 1001},
		},
	}
	want := map[string][]string{
		"name":                    {"is required"},
		"kind":                    {"must be one of: standard, express"},
		"note":                    {"must be at most 10 characters"},
		"email":                   {"must be a valid email address"},
		"parcels.0.reference":     {"must be at most 5 characters"},
		"parcels.1.weight_amount": {"must be greater than 0"},
		"parcels.2.weight_amount": {"must be at most 1000"},
	}
	got := map[string][]string(httpapi.Validate(req))
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Validate =\n %v\nwant\n %v", got, want)
	}
}

func TestValidateEmptySlice(t *testing.T) {
	got := map[string][]string(httpapi.Validate(validateRequest{Name: "n", Kind: "standard", Parcels: []validateParcel{}}))
	want := map[string][]string{"parcels": {"must have at least 1 items"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Validate = %v, want %v", got, want)
	}
}
