// Package providerscheck holds the tests of tools/engine/providers.sh, the script `make engine`
// runs to get the DigitalOcean and Civo provider plugins, run with `make test` (tools/engine is a
// module of its own, which `go test ./...` does not reach).
package providerscheck
