package usecase

// ModuleOf is moduleOf, for the naming test.
var ModuleOf = moduleOf
