package componentprovider

import (
	"context"
	"time"

	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"
)

// Custom is a custom resource the plugin manages itself (rather than a component of other
// providers' resources).
type Custom struct {
	// Token is its type, e.g. "clusterplane:civo:NodePool".
	Token string
	// New returns the resource configured with the provider's variables (its token, API URL).
	New func(config map[string]string) CustomResource
}

// CustomResource is what a custom resource does, in property maps; the Server speaks gRPC.
type CustomResource interface {
	// Check lists what is wrong with new inputs; values not yet known are not checked.
	Check(news resource.PropertyMap) []Failure
	// Diff compares the state with new inputs.
	Diff(olds, news resource.PropertyMap) Change
	// Create creates the resource (in a preview: returns what it would be) and returns its id
	// and state. timeout 0 means the resource's default.
	Create(ctx context.Context, news resource.PropertyMap, timeout time.Duration, preview bool) (string, resource.PropertyMap, error)
	// Read returns the resource's id, state and inputs as the cloud has them; an empty id when it
	// is gone. state and inputs are empty for an import.
	Read(ctx context.Context, id string, state, inputs resource.PropertyMap) (string, resource.PropertyMap, resource.PropertyMap, error)
	// Update changes the resource in place and returns its state.
	Update(ctx context.Context, olds, news resource.PropertyMap, timeout time.Duration, preview bool) (resource.PropertyMap, error)
	// Delete deletes the resource; one already gone is not an error.
	Delete(ctx context.Context, id string, state resource.PropertyMap, timeout time.Duration) error
}

// Failure is an input Check refuses: the property and why.
type Failure struct{ Property, Reason string }

// Change is what Diff finds: the properties that change, those of them that replace the
// resource, and whether the old one must be deleted before the new one is created.
type Change struct {
	Updates, Replaces   []string
	DeleteBeforeReplace bool
}

// PartialError is a Create error after which the resource exists, unfinished: Pulumi records
// it with ID and State so that nothing in the cloud is unknown to the state.
type PartialError struct {
	ID    string
	State resource.PropertyMap
	Err   error
}

func (e *PartialError) Error() string { return e.Err.Error() }
func (e *PartialError) Unwrap() error { return e.Err }

var propertyOptions = plugin.MarshalOptions{KeepUnknowns: true, KeepSecrets: true, SkipNulls: true}

func (s *Server) custom(typ string) (CustomResource, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.customs[typ]
	if !ok {
		return nil, status.Errorf(codes.InvalidArgument, "clusterplane has no resource %q", typ)
	}
	return c.New(s.config), nil
}

// resourceOf returns the custom resource of urn's type and the property maps of structs.
func (s *Server) resourceOf(urn string, structs ...*structpb.Struct) (CustomResource, []resource.PropertyMap, error) {
	r, err := s.custom(resource.URN(urn).Type().String())
	if err != nil {
		return nil, nil, err
	}
	maps := make([]resource.PropertyMap, len(structs))
	for i, st := range structs {
		if maps[i], err = unmarshal(st); err != nil {
			return nil, nil, err
		}
	}
	return r, maps, nil
}

func unmarshal(st *structpb.Struct) (resource.PropertyMap, error) {
	m, err := plugin.UnmarshalProperties(st, propertyOptions)
	return m, errors.Wrap(err, "read the properties")
}

func marshal(m resource.PropertyMap) (*structpb.Struct, error) {
	st, err := plugin.MarshalProperties(m, propertyOptions)
	return st, errors.Wrap(err, "write the properties")
}

func timeout(seconds float64) time.Duration { return time.Duration(seconds * float64(time.Second)) }

// CheckConfig accepts the provider's configuration as given: every setting is optional.
func (s *Server) CheckConfig(_ context.Context, req *pulumirpc.CheckRequest) (*pulumirpc.CheckResponse, error) {
	return &pulumirpc.CheckResponse{Inputs: req.GetNews()}, nil
}

// DiffConfig says a changed configuration (a new token) updates the provider: no resource
// needs replacing for it.
func (s *Server) DiffConfig(_ context.Context, req *pulumirpc.DiffRequest) (*pulumirpc.DiffResponse, error) {
	olds, err := unmarshal(req.GetOldInputs())
	if err != nil {
		return nil, err
	}
	news, err := unmarshal(req.GetNews())
	if err != nil {
		return nil, err
	}
	if olds.DeepEquals(news) {
		return &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_NONE}, nil
	}
	return &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_SOME}, nil
}

// Check checks a custom resource's inputs.
func (s *Server) Check(_ context.Context, req *pulumirpc.CheckRequest) (*pulumirpc.CheckResponse, error) {
	r, m, err := s.resourceOf(req.GetUrn(), req.GetNews())
	if err != nil {
		return nil, err
	}
	resp := &pulumirpc.CheckResponse{Inputs: req.GetNews()}
	for _, f := range r.Check(m[0]) {
		resp.Failures = append(resp.Failures, &pulumirpc.CheckFailure{Property: f.Property, Reason: f.Reason})
	}
	return resp, nil
}

// Diff compares a custom resource's state with its new inputs.
func (s *Server) Diff(_ context.Context, req *pulumirpc.DiffRequest) (*pulumirpc.DiffResponse, error) {
	r, m, err := s.resourceOf(req.GetUrn(), req.GetOlds(), req.GetNews())
	if err != nil {
		return nil, err
	}
	c := r.Diff(m[0], m[1])
	resp := &pulumirpc.DiffResponse{
		Changes:             pulumirpc.DiffResponse_DIFF_NONE,
		Diffs:               c.Updates,
		Replaces:            c.Replaces,
		DeleteBeforeReplace: c.DeleteBeforeReplace,
		HasDetailedDiff:     true,
		DetailedDiff:        map[string]*pulumirpc.PropertyDiff{},
	}
	if len(c.Updates) > 0 {
		resp.Changes = pulumirpc.DiffResponse_DIFF_SOME
	}
	replaces := map[string]bool{}
	for _, k := range c.Replaces {
		replaces[k] = true
	}
	for _, k := range c.Updates {
		kind := pulumirpc.PropertyDiff_UPDATE
		if replaces[k] {
			kind = pulumirpc.PropertyDiff_UPDATE_REPLACE
		}
		resp.DetailedDiff[k] = &pulumirpc.PropertyDiff{Kind: kind, InputDiff: true}
	}
	return resp, nil
}

// Create creates a custom resource.
func (s *Server) Create(ctx context.Context, req *pulumirpc.CreateRequest) (*pulumirpc.CreateResponse, error) {
	r, m, err := s.resourceOf(req.GetUrn(), req.GetProperties())
	if err != nil {
		return nil, err
	}
	id, state, err := r.Create(ctx, m[0], timeout(req.GetTimeout()), req.GetPreview())
	var partial *PartialError
	if errors.As(err, &partial) {
		return nil, initFailed(partial.ID, partial.State, err)
	}
	if err != nil {
		return nil, err
	}
	props, err := marshal(state)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.CreateResponse{Id: id, Properties: props}, nil
}

// initFailed is the gRPC error that tells the engine the resource was created but failed to
// initialise: it keeps the resource in the state.
func initFailed(id string, state resource.PropertyMap, cause error) error {
	props, err := marshal(state)
	if err != nil {
		return cause
	}
	st, err := status.New(codes.Unknown, cause.Error()).WithDetails(&pulumirpc.ErrorResourceInitFailed{
		Id: id, Properties: props, Reasons: []string{cause.Error()},
	})
	if err != nil {
		return cause
	}
	return st.Err()
}

// Read reads a custom resource from the cloud, for a refresh or an import.
func (s *Server) Read(ctx context.Context, req *pulumirpc.ReadRequest) (*pulumirpc.ReadResponse, error) {
	r, m, err := s.resourceOf(req.GetUrn(), req.GetProperties(), req.GetInputs())
	if err != nil {
		return nil, err
	}
	id, outs, ins, err := r.Read(ctx, req.GetId(), m[0], m[1])
	if err != nil || id == "" {
		return &pulumirpc.ReadResponse{}, err
	}
	props, err := marshal(outs)
	if err != nil {
		return nil, err
	}
	in, err := marshal(ins)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.ReadResponse{Id: id, Properties: props, Inputs: in}, nil
}

// Update changes a custom resource in place.
func (s *Server) Update(ctx context.Context, req *pulumirpc.UpdateRequest) (*pulumirpc.UpdateResponse, error) {
	r, m, err := s.resourceOf(req.GetUrn(), req.GetOlds(), req.GetNews())
	if err != nil {
		return nil, err
	}
	state, err := r.Update(ctx, m[0], m[1], timeout(req.GetTimeout()), req.GetPreview())
	if err != nil {
		return nil, err
	}
	props, err := marshal(state)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.UpdateResponse{Properties: props}, nil
}

// Delete deletes a custom resource.
func (s *Server) Delete(ctx context.Context, req *pulumirpc.DeleteRequest) (*emptypb.Empty, error) {
	r, m, err := s.resourceOf(req.GetUrn(), req.GetProperties())
	if err != nil {
		return nil, err
	}
	return &emptypb.Empty{}, r.Delete(ctx, req.GetId(), m[0], timeout(req.GetTimeout()))
}
