package httpapi

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/go-playground/validator/v10"

	"shipd/platform/fault"
)

var validate = newValidator()

func newValidator() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			return ""
		}
		return name
	})
	return v
}

// Validate checks struct tags (validate:"...") of a decoded request and
// returns field errors keyed by dotted JSON path, e.g. "parcels.1.weight_amount".
func Validate(req any) fault.FieldErrors {
	errs := fault.FieldErrors{}
	err := validate.Struct(req)
	var verrs validator.ValidationErrors
	if !errors.As(err, &verrs) {
		return errs
	}
	for _, fe := range verrs {
		errs.Add(fieldPath(fe.Namespace()), message(fe))
	}
	return errs
}

// fieldPath turns "createRequest.parcels[1].weight_amount" into "parcels.1.weight_amount".
func fieldPath(ns string) string {
	_, rest, found := strings.Cut(ns, ".")
	if !found {
		rest = ns
	}
	rest = strings.ReplaceAll(rest, "[", ".")
	return strings.ReplaceAll(rest, "]", "")
}

func message(fe validator.FieldError) string {
	switch fe.Tag() {
	case "required", "required_with", "required_without":
		return "is required"
	case "max":
		if fe.Kind() == reflect.String {
			return "must be at most " + fe.Param() + " characters"
		}
		return "must be at most " + fe.Param()
	case "min":
		if fe.Kind() == reflect.String {
			return "must be at least " + fe.Param() + " characters"
		}
		if fe.Kind() == reflect.Slice {
			return "must have at least " + fe.Param() + " items"
		}
		return "must be at least " + fe.Param()
	case "gt":
		return "must be greater than " + fe.Param()
	case "oneof":
		return "must be one of: " + strings.ReplaceAll(fe.Param(), " ", ", ")
	case "email":
		return "must be a valid email address"
	case "url", "http_url":
		return "must be a valid URL"
	case "iso3166_1_alpha2":
		return "must be an ISO 3166-1 alpha-2 country code"
	case "iso4217":
		return "must be an ISO 4217 currency code"
	default:
		return fmt.Sprintf("fails the %s rule", fe.Tag())
	}
}
