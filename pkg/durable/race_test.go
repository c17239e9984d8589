//go:build race

package durable_test

// raceBuild is set when the tests are built with the race detector: a binary the tests build
// is built the same way, so that the build reuses the packages compiled for them.
const raceBuild = true
