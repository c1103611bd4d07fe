// Package pko turns deploy targets into the custom resources that make the Pulumi Kubernetes
// Operator (PKO v2) deploy them exactly as `clusterplane up` would: a Stack (pulumi.com/v1) per
// manifest, on the same stack of the same backend, running the kind's program from the workspace
// image (deploy/pko), ordered by the manifests' references; and on request an Update
// (auto.pulumi.com/v1alpha1) per stack that previews with expectNoChanges: drift reported, not
// undone.
//
// The program runs from the image rather than from a Program resource because PKO names a
// Program's project after the Program object, while a clusterplane stack's project is its kind
// (digitaloceankubernetescluster): Programs of one kind would all need one name in one namespace.
// The image holds each kind's program once, and a Stack passes its manifest as the stack input.
package pko

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts/cloudlist"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/queue"
	"github.com/clusterplane/clusterplane/pkg/manifest/apikinds"
	"github.com/clusterplane/clusterplane/pkg/pulumi/programinput"
	"github.com/pkg/errors"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"sigs.k8s.io/yaml"
)

// MaxName is the longest Stack name PKO accepts (its CRD's CEL rule).
const MaxName = 42

// ProgramsDir is where the workspace image keeps each kind's program, one folder per kind named
// as its program (deploy/pko/Dockerfile).
const ProgramsDir = "/clusterplane/programs"

// Keys of the Kubernetes Secret the stacks read their backend and passphrase from; each cloud's
// token is under TokenKey.
const (
	BackendKey    = "backend-url"
	PassphraseKey = "passphrase"
)

// TokenKey is the key of the Secret holding the token of the cloud id: "<cloud>-token", e.g.
// digitalocean-token.
func TokenKey(id cloud.ID) string { return string(id) + "-token" }

// TokenKeys are the Secret's token keys, one per cloud a driver knows, in the drivers' order, as
// a sentence lists them ("civo-token, digitalocean-token").
func TokenKeys() string {
	var out []string
	for _, id := range clouds.IDs() {
		out = append(out, TokenKey(id))
	}
	return strings.Join(out, ", ")
}

// AuthDelegator is the cluster role PKO's installation guide binds each Stack's service account
// to: the operator authenticates to the workspace pod's agent with its own token, and the agent
// checks that token with TokenReviews and SubjectAccessReviews, which this role allows.
const AuthDelegator = "system:auth-delegator"

// DefaultNamespace is where the resources go when no namespace is given: the ServiceAccount's
// binding must name one, and the Stacks must be in the same.
const DefaultNamespace = "default"

// Options steer the export.
type Options struct {
	// Image is the workspace image (deploy/pko/Dockerfile built and pushed).
	Image string
	// Secret names the Kubernetes Secret with BackendKey, PassphraseKey and the tokens.
	Secret string
	// Namespace is the namespace of every resource; empty is DefaultNamespace.
	Namespace string
	// ServiceAccount is the account every Stack's workspace pod runs as; the export creates it and
	// binds it to AuthDelegator.
	ServiceAccount string
	// DriftCheck adds, per stack, an Update that previews with expectNoChanges.
	DriftCheck bool
	// DriftSchedule, a cron schedule, adds a CronJob that creates such an Update per stack, afresh
	// each time it runs.
	DriftSchedule string
	// KubectlImage is the image the CronJob runs kubectl create in.
	KubectlImage string
	// Manifest is what the clusterplane.dev/manifest annotation says of a target's file: a path
	// that is the same on every machine. Nil keeps the file as given.
	Manifest func(file string) string
}

func (o Options) namespace() string {
	if o.Namespace == "" {
		return DefaultNamespace
	}
	return o.Namespace
}

// File is what one manifest exports: its custom resources, in the order to apply them.
type File struct {
	Target deploytarget.Target
	// Name is the Stack's Kubernetes name, also the file's name without ".yaml".
	Name    string
	Objects []map[string]any
}

// YAML is the file's resources as a YAML stream.
func (f File) YAML() ([]byte, error) {
	var b strings.Builder
	for i, o := range f.Objects {
		data, err := yaml.Marshal(o)
		if err != nil {
			return nil, errors.Wrapf(err, "%s: marshal %s", f.Target.File, o["kind"])
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(data)
	}
	return []byte(b.String()), nil
}

// Export is every target's resources, in the targets' order, each stack once. Targets referencing
// a stack that no target deploys get no prerequisite for it: that stack is deployed some other way.
func Export(targets []deploytarget.Target, opts Options) ([]File, error) {
	if opts.Image == "" || opts.Secret == "" || opts.ServiceAccount == "" {
		return nil, errors.New("the workspace image, the Secret's name and the service account are required")
	}
	// The refusals of preview, through the same check (deploy.Order): two manifests of one stack
	// (a manifest and its stack-input form holding the same manifest are one), a cycle, and a reference to a stack that no
	// manifest given deploys. preview asks the backend whether such a stack exists; the export is
	// offline, and the operator orders only the Stacks it holds, so it refuses them all.
	// Order's exists fails rather than answers "no": offline, the export cannot tell whether the
	// stack exists, only that it holds no Stack for it.
	notHeld := func(string) (bool, error) {
		return false, errors.New("give its manifest too: the operator orders only the Stacks it holds")
	}
	if _, _, err := queue.Order(targets, notHeld); err != nil {
		return nil, errors.Wrap(err, "the operator could not deploy these manifests as given")
	}
	// A manifest and its stack-input form are one Stack.
	targets = queue.Distinct(targets)
	names := map[string]string{}
	for _, t := range targets {
		names[t.Key()] = Name(t)
	}
	var out []File
	for _, t := range targets {
		f, err := export(t, names, opts)
		if err != nil {
			return nil, errors.Wrap(err, t.File)
		}
		out = append(out, f)
	}
	return out, nil
}

// tokenEnv is the variable the kind's program reads its cloud's token from, and the Secret's key
// that holds it: the stack input's cloud asked of its driver. A stack input of no cloud a driver
// knows is an error naming its kind, never another cloud's token.
func tokenEnv(kind string, input proto.Message) (env, key string, err error) {
	d, ok := cloudlist.OfInput(input)
	if !ok {
		return "", "", errors.Errorf("kind %s deploys to no cloud a driver knows: no token to give its stack", kind)
	}
	return d.Env().TokenEnv, TokenKey(d.ID()), nil
}

func export(t deploytarget.Target, names map[string]string, opts Options) (File, error) {
	if err := noCredentials(t.Input); err != nil {
		return File{}, err
	}
	manifest, err := protojson.MarshalOptions{}.Marshal(apikinds.Target(t.Input))
	if err != nil {
		return File{}, errors.Wrap(err, "marshal the manifest")
	}
	// The stack input the program reads: the manifest under target, as YAML, its provider settings
	// from the environment (never from the export).
	var target any
	if err := yaml.Unmarshal(manifest, &target); err != nil {
		return File{}, err
	}
	input, err := yaml.Marshal(map[string]any{"target": target})
	if err != nil {
		return File{}, err
	}
	name := names[t.Key()]
	secretRef := func(key string) map[string]any {
		return map[string]any{"type": "Secret", "secret": map[string]any{"name": opts.Secret, "key": key}}
	}
	tokenVar, tokenKey, err := tokenEnv(t.Name, t.Input)
	if err != nil {
		return File{}, err
	}
	spec := map[string]any{
		// Fully qualified, as clusterplane names it on a self-managed backend: the two take turns.
		"stack": "organization/" + t.Project + "/" + t.Stack,
		"envRefs": map[string]any{
			"PULUMI_BACKEND_URL":       secretRef(BackendKey),
			"PULUMI_CONFIG_PASSPHRASE": secretRef(PassphraseKey),
			tokenVar:                   secretRef(tokenKey),
		},
		"config":             map[string]any{programinput.ConfigKey: string(input)},
		"serviceAccountName": opts.ServiceAccount,
		"destroyOnFinalize":  !protected(t.Input),
		"workspaceTemplate": map[string]any{"spec": map[string]any{
			"image": opts.Image,
			"local": map[string]any{"dir": ProgramsDir + "/" + t.Project},
		}},
	}
	var prerequisites []any
	for _, ref := range deploytarget.References(t.Input) {
		if n, ok := names[ref]; ok {
			prerequisites = append(prerequisites, map[string]any{"name": n})
		}
	}
	if len(prerequisites) > 0 {
		spec["prerequisites"] = prerequisites
	}
	stack := map[string]any{
		"apiVersion": "pulumi.com/v1",
		"kind":       "Stack",
		"metadata":   metadata(name, t, opts),
		"spec":       spec,
	}
	f := File{Target: t, Name: name, Objects: []map[string]any{stack}}
	if opts.DriftCheck {
		f.Objects = append(f.Objects, map[string]any{
			"apiVersion": "auto.pulumi.com/v1alpha1",
			"kind":       "Update",
			"metadata":   metadata(name+"-drift", t, opts),
			"spec":       driftSpec(f, ""),
		})
	}
	return f, nil
}

func metadata(name string, t deploytarget.Target, opts Options) map[string]any {
	file := t.File
	if opts.Manifest != nil {
		file = opts.Manifest(file)
	}
	m := plainMetadata(name, opts)
	m["labels"].(map[string]any)["clusterplane.dev/kind"] = strings.ToLower(t.Name)
	m["annotations"] = map[string]any{
		"clusterplane.dev/stack":    t.Key(),
		"clusterplane.dev/manifest": file,
	}
	return m
}

// plainMetadata names a resource that belongs to no one stack.
func plainMetadata(name string, opts Options) map[string]any {
	return map[string]any{
		"name":      name,
		"namespace": opts.namespace(),
		"labels":    map[string]any{"app.kubernetes.io/managed-by": "clusterplane"},
	}
}

// noCredentials refuses a stack input that carries a token: an export never holds one.
func noCredentials(input proto.Message) error {
	m := input.ProtoReflect()
	fd := m.Descriptor().Fields().ByJSONName(kindfield.StackInputProviderConfig)
	if fd == nil || !m.Has(fd) {
		return nil
	}
	pc := m.Get(fd).Message()
	var set []string
	pc.Range(func(f protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		set = append(set, "providerConfig."+f.JSONName())
		return true
	})
	sort.Strings(set)
	for _, s := range set {
		if strings.HasSuffix(s, "Token") {
			return errors.Errorf("%s is set: an export never holds a token; remove it and put the token into the Kubernetes Secret", s)
		}
	}
	if len(set) > 0 {
		return errors.Errorf("%s: the operator's stacks take their provider settings from the Secret and the environment, not the stack input; remove them",
			strings.Join(set, ", "))
	}
	return nil
}

// protected tells whether the manifest's resources are protected: a cluster unless
// deletionProtection is false. Its Stack then never destroys on finalize.
func protected(input proto.Message) bool {
	spec := apikinds.Target(input).ProtoReflect()
	sfd := spec.Descriptor().Fields().ByJSONName(kindfield.TargetSpec)
	if sfd == nil {
		return false
	}
	s := spec.Get(sfd).Message()
	fd := s.Descriptor().Fields().ByJSONName(kindfield.SpecDeletionProtection)
	if fd == nil {
		return false
	}
	return !s.Has(fd) || s.Get(fd).Bool()
}

var notName = regexp.MustCompile(`[^a-z0-9-]+`)

// Name is the Stack's Kubernetes name: the kind's short name and the stack, a DNS label of at most
// MaxName characters. A longer one is cut and ends with 8 hex digits of the stack's key, so that
// two stacks never share a name.
func Name(t deploytarget.Target) string {
	prefix := t.Short
	if prefix == "" {
		prefix = t.Project
	}
	name := strings.Trim(notName.ReplaceAllString(strings.ToLower(prefix+"-"+t.Stack), "-"), "-")
	if len(name) <= MaxName && name == prefix+"-"+t.Stack {
		return name
	}
	sum := sha256.Sum256([]byte(t.Key()))
	hash := hex.EncodeToString(sum[:4])
	keep := MaxName - len(hash) - 1
	if len(name) < keep {
		keep = len(name)
	}
	return fmt.Sprintf("%s-%s", strings.TrimRight(name[:keep], "-"), hash)
}
