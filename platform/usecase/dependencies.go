package usecase

import (
	"reflect"
	"strings"
)

// nameOf names a use case after its command or query type and the module
// that declares it: "shipments.CreateShipment".
func nameOf[T any]() string {
	t := reflect.TypeFor[T]()
	if m, ok := moduleOf(t.PkgPath()); ok {
		return m + "." + t.Name()
	}
	return t.Name()
}

func moduleOf(pkgPath string) (string, bool) {
	_, rest, ok := strings.Cut(pkgPath, "/modules/")
	if !ok {
		return "", false
	}
	m, _, _ := strings.Cut(rest, "/")
	return m, m != ""
}

// mustHaveDependencies panics naming the first field of the handler h that
// holds nil (an interface, pointer, map, func or channel; a slice may be
// empty): handlers
// keep their dependencies in fields, so this is the one place that refuses a
// handler built without one.
func mustHaveDependencies(useCase string, h any) {
	v := reflect.ValueOf(h)
	if !v.IsValid() || nilable(v.Kind()) && v.IsNil() {
		panic("usecase: " + useCase + " has no handler")
	}
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return
	}
	for i := range v.NumField() {
		f := v.Field(i)
		if nilable(f.Kind()) && f.IsNil() {
			panic("usecase: " + useCase + " handler built without its " + v.Type().Field(i).Name)
		}
	}
}

func nilable(k reflect.Kind) bool {
	switch k {
	case reflect.Interface, reflect.Pointer, reflect.Map, reflect.Func, reflect.Chan:
		return true
	}
	return false
}
