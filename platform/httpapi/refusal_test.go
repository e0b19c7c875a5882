package httpapi_test

import (
	"errors"
	"reflect"
	"testing"

	"shipd/platform/fault"
	"shipd/platform/httpapi"
)

func TestRefusalNamesShapeAndTheRulesOfTheRest(t *testing.T) {
	rules := fault.Fields(map[string][]string{
		"name":                    {"is required"},
		"parcels":                 {"must have at most 2 items"},
		"parcels.1.weight_amount": {"must be greater than 0"}, // a placeholder's: parcels.1 was not read
		"parcels.10.weight_unit":  {"must be one of: KG"},     // another parcel's
		"metadata":                {"is required"},            // under a shape problem
	})
	shape := fault.FieldErrors{"parcels.1.weight_amount": {"has the wrong type"}, "metadata": {"must be an object"}}
	got, _ := fault.As(httpapi.Refusal(shape, rules, "parcels.1"))
	want := map[string][]string{
		"name": {"is required"}, "parcels": {"must have at most 2 items"}, "parcels.10.weight_unit": {"must be one of: KG"},
		"parcels.1.weight_amount": {"has the wrong type"}, "metadata": {"must be an object"},
	}
	if got == nil || got.Kind != fault.KindValidation || !reflect.DeepEqual(got.Fields, want) {
		t.Errorf("Refusal = %v, want %v", got, want)
	}
	if len(shape) != 2 {
		t.Errorf("Refusal changed the shape problems it was given: %v", shape)
	}
}

func TestRefusalWithoutRuleProblems(t *testing.T) {
	got, _ := fault.As(httpapi.Refusal(fault.FieldErrors{"events": {"must be an array"}}, nil))
	if got == nil || !reflect.DeepEqual(got.Fields, map[string][]string{"events": {"must be an array"}}) {
		t.Errorf("Refusal = %v", got)
	}
	other := errors.New("not a rule")
	if err := httpapi.Refusal(fault.FieldErrors{"events": {"must be an array"}}, other); err != other {
		t.Errorf("an error of another kind became %v", err)
	}
}
