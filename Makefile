# Everything a developer or CI runs. `make help` lists the targets.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c

# Pinned code-generation tools, built into .engine/tools when missing or of another version:
# .engine is what CI keeps between runs (beside the engine's own builds), and buf alone takes
# about 2.5 minutes to compile on 2 cores.
TOOLS_BIN := $(CURDIR)/.engine/tools
export PATH := $(TOOLS_BIN):$(PATH)
BUF_VERSION := v1.75.0
PROTOC_GEN_GO_VERSION := v1.36.12
# validate.proto comes from this Go module: buf's remote registry is not reachable here.
PROTOVALIDATE_VERSION := v1.2.2
VALIDATE_PROTO := third_party/protovalidate/buf/validate/validate.proto
# The descriptors with their comments, embedded by pkg/describe/apidoc: the compiled Go code has no comments.
API_IMAGE := pkg/describe/apidoc/apis.binpb
# The JSON Schemas of the manifests and stack inputs, generated from the descriptors and comments.
SCHEMAS := schemas
# The Pulumi package schema of the component provider, generated from the descriptors and comments.
PULUMI_SCHEMA := cmd/pulumi-resource-clusterplane/schema.json
# The Pitfalls page, whose table of replacing and refused changes comes from pkg/change/effects.
PITFALLS := docs/pitfalls.md
# The outputs table of docs/deploying.md, between its marker lines.
OUTPUTS_PAGE := docs/deploying.md
# The serve API's OpenAPI document, as api.OpenAPI() makes it from the routes and the drivers'
# clouds: adding a cloud to pkg/cloud/clouds changes it.
OPENAPI := docs/openapi.json
# Each kind's outputs, as Go structs and stack output names, generated from its StackOutputs message.
STACK_OUTPUTS := apis/clusterplane/stackoutputs/stackoutputs_gen.go
# Everything `make protos` writes; check-generated fails when any of it is stale.
GENERATED := apis $(API_IMAGE) $(STACK_OUTPUTS) $(SCHEMAS) $(PULUMI_SCHEMA) $(PITFALLS) $(OUTPUTS_PAGE) $(OPENAPI)

.PHONY: help tools protos check-generated check-tracked openapi lint test test-karpenter karpenter-generate check-karpenter-generated fuzz bench bench-api bench-fleet bench-karpenter build clean sdks sdk-nodejs check-sdks engine kube e2e release check-platforms sandbox images

help:
	@echo "make test             go vet and all tests"
	@echo "make lint             buf lint and gofmt check"
	@echo "make check-tracked    fail when git tracks a built binary or a file over 1 MB"
	@echo "make protos           regenerate Go code, JSON Schemas, the Pulumi schema, docs/pitfalls.md and docs/openapi.json"
	@echo "                      (installs buf, protoc-gen-go)"
	@echo "make openapi          regenerate docs/openapi.json alone, e.g. after adding a cloud (make protos runs it too)"
	@echo "make check-generated  regenerate and fail if the committed code differs"
	@echo "make test-karpenter   vet and test the Karpenter provider's module (karpenter/)"
	@echo "make karpenter-generate  the Karpenter provider's deepcopy code, CRDs and JSON Schemas; check-karpenter-generated fails when stale"
	@echo "make build            the four program binaries, clusterplane and pulumi-resource-clusterplane in bin/"
	@echo "make bench            benchmarks, binary sizes and build times (bench/build.sh)"
	@echo "make bench-api        the API under a portal's load: 200 clients at once listing and reading 1,000 pools, on SQLite and"
	@echo "                      a throwaway PostgreSQL; p50, p99, requests a second and the load (BENCH_API_ROUNDS=20);"
	@echo "                      *-clients-apart: the clients in a process of their own on one core, the replica on the other;"
	@echo "                      and 10,000 clusters with 20,000 pools on PostgreSQL, beside a static server of the same bytes"
	@echo "                      and headers (BENCH_API_FLEET_ROUNDS=200)"
	@echo "make bench-fleet      status, drift, unchanged preview and up on fleets of 1,000, 3,000 and 10,000 DigitalOcean stacks:"
	@echo "                      wall, CPU, peak memory, engines, requests, and each figure's 10,000/1,000 ratio; fails when a"
	@echo "                      wall or CPU ratio exceeds 15 (bench/fleet.sh; needs make engine; FLEET_SIZES=\"1000 10000\","
	@echo "                      FLEET_OLD_1000=1 also runs 6de0a4d^); then drift and up of fleets with 1% changed in the cloud"
	@echo "                      (FLEET_CHANGED_ONLY=1 for those alone)"
	@echo "make bench-karpenter  Karpenter on the real control plane, with its kwok provider and with ours on the loopback clouds:"
	@echo "                      a pending pod's wait for a Ready node; 100 pending pods' time, nodes and cloud requests"
	@echo "                      (bench/karpenter.sh; builds the control plane with make kube)"
	@echo "make sdks             regenerate sdk/nodejs, sdk/python and sdk/go from the plugin's schema"
	@echo "make sdk-nodejs       build the Node.js SDK into sdk/nodejs/bin (SDK_VERSION=0.0.0), as examples/typescript uses it"
	@echo "make check-sdks       fail if the SDKs are stale; type-check examples/typescript against sdk/nodejs"
	@echo "make engine           the real Pulumi CLI v3.259.0 and its yaml, go and nodejs language hosts in .engine/bin, and the real"
	@echo "                      DigitalOcean 4.57.0 and Civo 2.4.8 provider plugins in .engine/plugins (tools/engine)"
	@echo "make kube             a real Kubernetes control plane (kube-apiserver, -controller-manager, -scheduler v1.34.9, etcd v3.6.4, kwok v0.7.0) and kubectl and helm in .engine/kube (tools/kube)"
	@echo "make check-platforms  clusterplane and the plugin type-check for Windows and macOS too (tools/platformcheck)"
	@echo "make release VERSION=v0.1.0  the release in dist/: binaries and plugins for 6 platforms, SDK packages, Go module, SHA256SUMS"
	@echo "                      (DOWNLOAD_URL=https://... where the engine downloads the plugin; PLATFORMS=linux/amd64,... fewer)"
	@echo "make e2e              build the engine, then deploy the programs on it with the real providers against loopback clouds (e2e/)"
	@echo "make images           the clusterplane (serve, the Pulumi CLI, the DigitalOcean and Civo plugins) and karpenter-clusterplane"
	@echo "                      images as OCI layouts in bin/images, without a container runtime (tools/images; VERSION=v0.1.0;"
	@echo "                      builds the engine first when missing), each tagged VERSION; prints their tags, digests and paths"
	@echo "make sandbox          deploy the examples into the local sandbox (loopback clouds, no account) and print their status;"
	@echo "                      builds the engine and bin/clusterplane first; bin/clusterplane sandbox --reset removes it (docs/sandbox.md)"

tools:
	@if [ "$$($(TOOLS_BIN)/buf --version 2>/dev/null)" != "$(BUF_VERSION:v%=%)" ]; then \
		echo "installing buf $(BUF_VERSION) into .engine/tools"; \
		GOBIN=$(TOOLS_BIN) go install github.com/bufbuild/buf/cmd/buf@$(BUF_VERSION); fi
	@if [ "$$($(TOOLS_BIN)/protoc-gen-go --version 2>/dev/null)" != "protoc-gen-go $(PROTOC_GEN_GO_VERSION)" ]; then \
		echo "installing protoc-gen-go $(PROTOC_GEN_GO_VERSION) into .engine/tools"; \
		GOBIN=$(TOOLS_BIN) go install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION); fi

$(VALIDATE_PROTO):
	@dir=$$(go mod download -json github.com/bufbuild/protovalidate@$(PROTOVALIDATE_VERSION) | sed -n 's/^\t"Dir": "\(.*\)",$$/\1/p'); \
		test -n "$$dir" || { echo "could not download github.com/bufbuild/protovalidate@$(PROTOVALIDATE_VERSION)"; exit 1; }; \
		mkdir -p $(dir $@); \
		install -m 0644 "$$dir/proto/protovalidate/buf/validate/validate.proto" $@

protos: tools $(VALIDATE_PROTO)
	find apis \( -name '*.pb.go' -o -name 'fields_gen.go' \) -delete
	buf generate
	go run ./tools/apisgen apis apis/clusterplane/all/all.go
	go run ./tools/fieldsgen apis apis/clusterplane/kindfield/kindfield.go
	buf build apis --exclude-imports -o $(API_IMAGE)
	go run ./tools/stackoutputsgen $(STACK_OUTPUTS)
	rm -f $(SCHEMAS)/*.schema.json
	go run ./tools/schemagen $(SCHEMAS)
	go run ./tools/pulumischema $(PULUMI_SCHEMA)
	go run ./tools/docgen -pitfalls $(PITFALLS) -outputs $(OUTPUTS_PAGE)
	$(MAKE) --no-print-directory openapi

# The serve API's document is written by its own freshness test, so that the file and the check
# can never disagree; pkg/serve/api's test still fails in CI when it is stale.
openapi:
	go test ./pkg/serve/api -count=1 -run '^TestTheOpenAPIDocumentIsFresh$$' -update

check-generated: protos
	@if [ -n "$$(git status --porcelain -- $(GENERATED))" ]; then \
		echo "generated code is stale; run 'make protos' and commit:"; git status --short -- $(GENERATED); exit 1; fi

# Nothing built belongs in git: a clone carries every tracked byte. A tracked file over 1 MB, or
# one that is an executable (ELF, Mach-O or PE), fails with its name.
MAX_TRACKED_BYTES := 1048576
check-tracked:
	@bad=0; while IFS= read -r -d '' f; do \
		[ -f "$$f" ] || continue; \
		size=$$(stat -c %s "$$f"); \
		if [ "$$size" -gt $(MAX_TRACKED_BYTES) ]; then echo "tracked file over 1 MB: $$f ($$size bytes)"; bad=1; fi; \
		magic=$$(head -c 4 "$$f" | od -An -tx1 | tr -d ' \n'); \
		case "$$magic" in 7f454c46|cffaedfe|cefaedfe|feedface|feedfacf|4d5a*) echo "tracked executable: $$f"; bad=1;; esac; \
	done < <(git ls-files -z); \
	exit $$bad

lint: tools $(VALIDATE_PROTO)
	buf lint
	@out=$$(gofmt -l $$(git ls-files --cached --others --exclude-standard '*.go')); \
		if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# How test, test-karpenter, fuzz and e2e run go test; neither flag drops a check.
# -vet=off: test and test-karpenter first run `go vet`, with every analyzer, on the same packages,
# and e2e on its own below; fuzz's packages are among test's. go test's vet checks are a subset of
# those: left on, they type-check every dependency again under another cache key, 63 CPU-s for
# the main module and 41 for the Karpenter module's (measured with a fresh key on 2026-11-27).
# -ldflags='-s -w': test binaries without a symbol table and DWARF, which nothing reads; a panic's
# or a timeout's stack still names files and lines (those come from the pclntab, which stays).
# Linking takes a third less: cmd/clusterplane's test binary 6.2 CPU-s instead of 8.7, pkg/deploy's
# 5.2 instead of 7.6, about a hundred binaries in all.
GOTEST := go test -vet=off -ldflags='-s -w'

test:
	go vet ./...
	$(GOTEST) -timeout 20m ./...
	$(MAKE) test-karpenter

# The Karpenter provider (karpenter/, issue 67) is a module of its own: ./... above does not reach it.
test-karpenter:
	cd karpenter && go vet ./... && $(GOTEST) -timeout 20m ./...

# The NodeClasses' deepcopy code and CRDs (controller-gen, pinned in karpenter/tools/controllergen),
# their JSON Schemas and Karpenter core's CRDs copied into the chart (karpenter/tools/crdschema).
# controller-gen is built into .engine/tools and kept while its module's go.mod and go.sum stay as
# they were (a digest of both beside it).
KARPENTER_GENERATED := karpenter/pkg/apis karpenter/chart/crds karpenter/schemas
CONTROLLER_GEN := $(TOOLS_BIN)/karpenter-controller-gen
karpenter-generate:
	@digest=$$(cat karpenter/tools/controllergen/go.mod karpenter/tools/controllergen/go.sum | sha256sum | cut -d' ' -f1); \
	if [ ! -x $(CONTROLLER_GEN) ] || [ "$$(cat $(CONTROLLER_GEN).digest 2>/dev/null)" != "$$digest" ]; then \
		echo "building controller-gen (karpenter/tools/controllergen) into .engine/tools"; \
		mkdir -p $(TOOLS_BIN); \
		(cd karpenter/tools/controllergen && go build -o $(CONTROLLER_GEN) sigs.k8s.io/controller-tools/cmd/controller-gen); \
		echo "$$digest" >$(CONTROLLER_GEN).digest; fi
	cd karpenter && $(CONTROLLER_GEN) object paths=./pkg/apis/... \
		crd:generateEmbeddedObjectMeta=false paths=./pkg/apis/... output:crd:artifacts:config=chart/crds
	cd karpenter && go run ./tools/crdschema -crds chart/crds -out schemas \
		-core "$$(go list -m -f '{{.Dir}}' sigs.k8s.io/karpenter)/pkg/apis/crds"

check-karpenter-generated: karpenter-generate
	@if [ -n "$$(git status --porcelain -- $(KARPENTER_GENERATED))" ]; then \
		echo "the Karpenter provider's generated files are stale; run 'make karpenter-generate' and commit:"; \
		git status --short -- $(KARPENTER_GENERATED); exit 1; fi

# How long each fuzz target runs: a duration (2m) or a count of inputs (5000x). CI counts inputs:
# a duration can end while a slow input (a whole plan) is running, which go test reports as a
# failure ("context deadline exceeded").
FUZZTIME ?= 2m
FUZZTIME_PLAN ?= $(FUZZTIME)
# How long go test may spend minimising each new interesting input (default 60s of it each):
# unbounded, FuzzParse ran 54 inputs in 30 s, 21,891 with 10x.
FUZZMINIMIZETIME ?= 10x
fuzz:
	$(GOTEST) -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZETIME) ./pkg/manifest/stackinput
	$(GOTEST) -run '^$$' -fuzz '^FuzzReadInputs$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZETIME) ./pkg/pulumi/componentprovider
	$(GOTEST) -run '^$$' -fuzz '^FuzzParseThenPlan$$' -fuzztime $(FUZZTIME_PLAN) -fuzzminimizetime $(FUZZMINIMIZETIME) ./examples

bench:
	go test -run '^$$' -bench . -benchmem ./...
	bash bench/build.sh
	bash bench/discover.sh
	bash bench/takeover.sh
	bash bench/deploy.sh
	bash bench/statusdrift.sh
	bash bench/upgrade.sh

# The API under a portal's load (issue 63): BenchmarkTwoHundredConcurrentClients in
# pkg/serve/bench_test.go, on an SQLite file and a throwaway PostgreSQL (internal/testing/pgtest)
# in one run; PostgreSQL is required, not skipped. Each round is 200 requests at once. Then the
# same at 10,000 clusters and 20,000 pools on PostgreSQL, each round also sent to a static Go
# server answering the same bytes (issue 79: ...AtTenThousandClusters). That comparison runs
# more rounds: its p99 is decided by the few rounds a garbage collection falls in, and over 20
# rounds that is one or two of them.
BENCH_API_ROUNDS ?= 20
BENCH_API_FLEET_ROUNDS ?= 200
bench-api:
	CLUSTERPLANE_REQUIRE_POSTGRES=1 go test -run '^$$' -bench '^BenchmarkTwoHundredConcurrentClients$$' \
		-benchtime $(BENCH_API_ROUNDS)x -timeout 20m ./pkg/serve/
	CLUSTERPLANE_REQUIRE_POSTGRES=1 go test -run '^$$' -bench '^BenchmarkTwoHundredConcurrentClientsAtTenThousandClusters$$' \
		-benchtime $(BENCH_API_FLEET_ROUNDS)x -timeout 20m ./pkg/serve/

# Not part of bench or CI: it takes minutes at 100 stacks and most of an hour at 1,000.
bench-fleet:
	bash bench/fleet.sh

# Not part of bench or CI: minutes of a busy machine, and a control plane (make kube).
bench-karpenter: kube
	bash bench/karpenter.sh

build:
	mkdir -p bin
	go build -o bin/ ./iac/pulumi/... ./cmd/...

clean:
	rm -rf bin third_party

# The SDKs of the plugin's package, generated from its schema by tools/sdkgen, a module of its own
# (Pulumi's code generators are served only in versions older than the SDK this module pins).
sdks:
	cd tools/sdkgen && go run . ../../$(PULUMI_SCHEMA) ../../sdk

# The Node.js SDK as npm installs it, in one command: compiled into sdk/nodejs/bin with the
# TypeScript pinned in tools/sdkcheck, with its package.json at SDK_VERSION (the generator leaves
# the version to the publisher). examples/typescript depends on it.
SDK_VERSION ?= 0.0.0
sdk-nodejs:
	@test -x tools/sdkcheck/node_modules/.bin/tsc || (cd tools/sdkcheck && npm ci --no-audit --no-fund --loglevel=error)
	ln -sfn ../../tools/sdkcheck/node_modules sdk/nodejs/node_modules
	cd sdk/nodejs && ./node_modules/.bin/tsc -p tsconfig.json
	sed 's/$${VERSION}/$(SDK_VERSION)/' sdk/nodejs/package.json > sdk/nodejs/bin/package.json
	cp sdk/nodejs/README.md sdk/nodejs/bin/README.md

# Fails when the committed SDKs differ from what `make sdks` writes; then type-checks the
# TypeScript example against the Node.js SDK with tsc, compiles the Python SDK and builds the Go one.
check-sdks: sdks
	@if [ -n "$$(git status --porcelain -- sdk)" ]; then \
		echo "the SDKs are stale; run 'make sdks' and commit:"; git status --short -- sdk; exit 1; fi
	cd tools/sdkcheck && npm ci --no-audit --no-fund --loglevel=error && npx --no-install tsc -p tsconfig.json
	$(MAKE) sdk-nodejs
	cd examples/typescript && npm install --no-audit --no-fund --loglevel=error && ./node_modules/.bin/tsc -p tsconfig.json
	python3 -c 'import sys; [compile(open(f, encoding="utf-8").read(), f, "exec") for f in sys.argv[1:]]' \
		$$(find sdk/python -name '*.py')
	go build ./sdk/go/...

# The real Pulumi engine: the CLI and the yaml, go and nodejs language hosts, built from the Go
# modules in tools/engine into .engine/bin, and the real DigitalOcean and Civo provider plugins, built
# from the pinned sources in ../shared/providers-src into .engine/plugins, or installed with
# `pulumi plugin install` where those are absent (kept across runs, so only the first compiles;
# `clean` leaves them alone).
engine:
	bash tools/engine/build.sh

# A real Kubernetes control plane for the operator's and the drains' e2e tests (e2e/kube_test.go,
# e2e/kubecluster_test.go): kube-apiserver, kube-controller-manager and kube-scheduler v1.34.9,
# etcd v3.6.4 and kwok v0.7.0, and the kubectl and helm the Karpenter docs' e2e test types, built
# from the Go modules in tools/kube into .engine/kube, kept across runs like the engine (cold
# figures in tools/kube/build.sh).
kube:
	bash tools/kube/build.sh

# End-to-end tests: the programs deployed on the real engine with the real DigitalOcean and Civo
# provider plugins against loopback clouds (pkg/loopback/fakedo, pkg/loopback/fakecivo), offline, each in a
# temporary Pulumi home and file backend; and the operator export created on a real API server.
# Then what package autostack reads of a stack without the CLI, against what the real CLI says.
# The files tagged e2e are vetted here, with every analyzer: `go vet ./...` leaves them out. The
# suite's stream goes through tools/testtimes: a line a package, the first MiB of a failed
# test's output, and the slowest tests with their times at the end.
e2e: engine kube
	go vet -tags e2e ./e2e/... ./pkg/deploy/autostack/
	$(GOTEST) -json -tags e2e -count=1 -parallel 8 -timeout 75m ./e2e/... | go run ./tools/testtimes
	$(GOTEST) -tags e2e -count=1 -timeout 10m -run 'TheRealCLISays' ./pkg/deploy/autostack/

# The quickstart: every example manifest deployed into the sandbox (clusterplane sandbox: loopback
# DigitalOcean and Civo APIs, a file backend, no account or token; docs/sandbox.md), then their
# status. The engine is built when missing, bin/clusterplane always. The sandbox stays in
# .clusterplane-sandbox until `bin/clusterplane sandbox --reset`. Each manifest once: a
# *.stack-input.yaml is the same stack as its bare file.
SANDBOX_EXAMPLES = $(filter-out %.stack-input.yaml,$(wildcard examples/*kubernetes*/*.yaml))
sandbox:
	@if [ ! -x .engine/bin/pulumi ] || [ ! -x .engine/plugins/pulumi-resource-digitalocean ] || \
		[ ! -x .engine/plugins/pulumi-resource-civo ]; then $(MAKE) engine; fi
	mkdir -p bin
	go build -o bin/ ./cmd/clusterplane
	bin/clusterplane sandbox -- clusterplane up $(SANDBOX_EXAMPLES) --yes --quiet
	bin/clusterplane sandbox -- clusterplane status $(SANDBOX_EXAMPLES)

# The two images, as OCI layouts in bin/images/<name> (tools/images assembles them with
# go-containerregistry: no Docker or Podman). The binaries are built as a release builds them,
# static and without build ids; with the engine's files, the same commit gives the same digests.
# Each layout's image is tagged VERSION, the tag each chart's image.tag defaults to (its appVersion);
# images prints each layout's absolute path. Push one with any OCI tool under that tag, e.g.
# `crane push bin/images/clusterplane ghcr.io/you/clusterplane:v0.1.0`.
IMAGES_VERSION = $(or $(VERSION),v0.0.0)
images:
	@if [ ! -x .engine/bin/pulumi ] || [ ! -x .engine/plugins/pulumi-resource-digitalocean ] || \
		[ ! -x .engine/plugins/pulumi-resource-civo ]; then $(MAKE) engine; fi
	mkdir -p bin/images/build
	CGO_ENABLED=0 GOFLAGS=-buildvcs=false go build -trimpath \
		-ldflags "-s -w -buildid= -X github.com/clusterplane/clusterplane/pkg/release.version=$(IMAGES_VERSION)" \
		-o bin/images/build/ ./cmd/clusterplane
	cd karpenter && CGO_ENABLED=0 GOFLAGS=-buildvcs=false go build -trimpath -ldflags "-s -w -buildid=" \
		-o ../bin/images/build/ ./cmd/karpenter-clusterplane
	cd tools/images && go run . -out ../../bin/images -engine ../../.engine -version $(IMAGES_VERSION) \
		-revision "$$(git rev-parse HEAD)" -clusterplane ../../bin/images/build/clusterplane \
		-karpenter ../../bin/images/build/karpenter-clusterplane

# Every platform a release is built for compiles (Linux is the one the tests run on): a call that
# exists only on Linux fails here, not in the middle of a release. Darwin shares its source set
# with the other Unix builds, Windows has its own.
# Type-checked from source for each platform (tools/platformcheck), not cross-compiled: two
# cross-compiles built every dependency twice more, 7 minutes of a cold CI run; make release
# compiles and links every platform.
check-platforms:
	go run ./tools/platformcheck -platforms windows/amd64,darwin/arm64 ./cmd/clusterplane ./cmd/pulumi-resource-clusterplane

# A release in dist/ (tools/release): the same VERSION built twice gives the same files.
release:
	@test -n "$(VERSION)" || { echo "usage: make release VERSION=v0.1.0 [DOWNLOAD_URL=https://...] [PLATFORMS=linux/amd64,...]"; exit 2; }
	go run ./tools/release -version $(VERSION) -out dist $(if $(DOWNLOAD_URL),-download-url $(DOWNLOAD_URL)) $(if $(PLATFORMS),-platforms $(PLATFORMS))
