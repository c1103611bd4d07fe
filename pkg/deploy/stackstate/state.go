package stackstate

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/cloud/stackmark"
	"github.com/clusterplane/clusterplane/pkg/cloud/upread"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/sig"
)

// State is what operations read from a stack's exported state: no lock is needed to export it.
type State struct {
	Raw        apitype.UntypedDeployment
	Deployment apitype.DeploymentV3
}

// StateOf reads a stack's state as `pulumi stack export` writes it.
func StateOf(raw apitype.UntypedDeployment) (State, error) {
	st := State{Raw: raw}
	if len(raw.Deployment) > 0 && string(raw.Deployment) != "null" {
		if err := json.Unmarshal(raw.Deployment, &st.Deployment); err != nil {
			return State{}, errors.Wrap(err, "read the stack's state")
		}
	}
	return st, nil
}

// PendingCreates are the creates an interrupted operation left pending.
func (st State) PendingCreates() []PendingCreate {
	var out []PendingCreate
	for _, op := range st.Deployment.PendingOperations {
		if op.Type == apitype.OperationTypeCreating {
			out = append(out, PendingCreate{URN: string(op.Resource.URN), Type: string(op.Resource.Type),
				Name: resource.URN(op.Resource.URN).Name()})
		}
	}
	return out
}

// Resources are what a destroy deletes, "type name" each: the stack's resources but the stack
// itself and its providers, which hold nothing in the cloud.
func (st State) Resources() []string {
	var out []string
	for _, r := range st.Deployment.Resources {
		if r.Type == resource.RootStackType || strings.HasPrefix(string(r.Type), "pulumi:providers:") || r.Delete {
			continue
		}
		out = append(out, string(r.Type)+" "+r.URN.Name())
	}
	return out
}

// Outputs are the stack's outputs as the state holds them: secrets are encrypted there, and read
// as Output{Secret: true} without a value.
func (st State) Outputs() map[string]Output {
	out := map[string]Output{}
	for _, r := range st.Deployment.Resources {
		if r.Type != resource.RootStackType {
			continue
		}
		for name, v := range r.Outputs {
			if m, ok := v.(map[string]any); ok && m[sig.Key] == sig.Secret {
				out[name] = Output{Secret: true}
				continue
			}
			out[name] = Output{Value: v}
		}
	}
	return out
}

// Read is the state's resources as upread carries them to a program: each one's type and its
// outputs but the secret ones (encrypted in the state). The stack itself, its providers and
// resources pending deletion are left out, as Resources leaves them.
func (st State) Read() upread.Read {
	var out upread.Read
	for _, r := range st.Deployment.Resources {
		if r.Type == resource.RootStackType || strings.HasPrefix(string(r.Type), "pulumi:providers:") || r.Delete {
			continue
		}
		outputs := map[string]any{}
		for name, v := range r.Outputs {
			if m, ok := v.(map[string]any); ok && m[sig.Key] == sig.Secret {
				continue
			}
			outputs[name] = v
		}
		out = append(out, upread.Resource{Type: string(r.Type), Outputs: outputs})
	}
	return out
}

// values are the outputs' plain values, secrets "[secret]".
func values(outputs map[string]Output) map[string]any {
	out := map[string]any{}
	for name, o := range outputs {
		if o.Secret {
			out[name] = "[secret]"
			continue
		}
		out[name] = o.Value
	}
	return out
}

// OutputsOf reads Previous back as outputs, for the manifest gate.
func OutputsOf(previous map[string]any) map[string]Output {
	out := map[string]Output{}
	for name, v := range previous {
		out[name] = Output{Value: v, Secret: v == "[secret]"}
	}
	return out
}

// ImportPending records pending creates with the cloud ids the user found (values are [URN=]ID,
// a bare ID for the one pending create): each resource, as the engine was creating it, joins the
// stack's resources with its id, and the refresh that follows reads the rest from the cloud. The
// Pulumi CLI's own --import-pending-creates only drops them (3.259: the engine neither imports an
// "importing" operation nor keeps it), which would lose the cloud's resource.
func ImportPending(ctx context.Context, s Stack, st State, values []string) error {
	creates := st.PendingCreates()
	ids := map[string]string{}
	for _, v := range values {
		urn, id := "", v
		if i := strings.LastIndex(v, "="); i >= 0 {
			urn, id = v[:i], v[i+1:]
		} else if len(creates) == 1 {
			urn = creates[0].URN
		} else {
			return errors.Errorf("--import-pending-create %s: the stack has %d pending creates; give URN=ID for each", v, len(creates))
		}
		found := false
		for _, c := range creates {
			found = found || c.URN == urn
		}
		if !found || id == "" {
			return errors.Errorf("--import-pending-create %s: the stack has no pending create %s", v, urn)
		}
		ids[urn] = id
	}
	// The state is edited as JSON, every field it does not touch kept as it is.
	var deployment map[string]json.RawMessage
	var resources []json.RawMessage
	var ops []map[string]json.RawMessage
	if err := json.Unmarshal(st.Raw.Deployment, &deployment); err != nil {
		return errors.Wrap(err, "read the stack's state")
	}
	if err := UnmarshalIfAny(deployment["resources"], &resources); err != nil {
		return err
	}
	if err := UnmarshalIfAny(deployment["pending_operations"], &ops); err != nil {
		return err
	}
	var kept []map[string]json.RawMessage
	for _, op := range ops {
		var res map[string]json.RawMessage
		var urn, typ string
		if json.Unmarshal(op["resource"], &res) != nil || json.Unmarshal(op["type"], &typ) != nil ||
			json.Unmarshal(res["urn"], &urn) != nil {
			return errors.New("read the stack's pending operations: an operation without a resource, type or URN")
		}
		id, ok := ids[urn]
		if typ != string(apitype.OperationTypeCreating) || !ok {
			kept = append(kept, op)
			continue
		}
		res["id"], _ = json.Marshal(id)
		data, err := json.Marshal(res)
		if err != nil {
			return err
		}
		resources = append(resources, data) // after its parent and provider, before nothing that needs it
	}
	var err error
	if deployment["resources"], err = json.Marshal(resources); err != nil {
		return err
	}
	delete(deployment, "pending_operations")
	if len(kept) > 0 {
		if deployment["pending_operations"], err = json.Marshal(kept); err != nil {
			return err
		}
	}
	raw := st.Raw
	if raw.Deployment, err = json.Marshal(deployment); err != nil {
		return err
	}
	return errors.Wrap(s.Import(ctx, raw), "record the pending creates in the stack's state")
}

func UnmarshalIfAny(data json.RawMessage, v any) error {
	if len(data) == 0 || string(data) == "null" {
		return nil
	}
	return errors.Wrap(json.Unmarshal(data, v), "read the stack's state")
}

// Mark is the stack mark (package stackmark) the state's resources were deployed with, found in
// their tags wherever their inputs hold them (a list of tags, DigitalOcean's, a cluster's
// node_pool's too, or one string of them, Civo's cluster); ok is false when none carries one.
func (st State) Mark() (m stackmark.Mark, ok bool) {
	for _, r := range st.Deployment.Resources {
		if m, ok := markIn(r.Inputs); ok {
			return m, true
		}
	}
	return stackmark.Mark{}, false
}

// markIn is the first stack mark v, an input's value, holds: as a tag of a string of tags, or in a
// list or an object of any depth.
func markIn(v any) (stackmark.Mark, bool) {
	switch v := v.(type) {
	case string:
		if marks := stackmark.In(strings.Fields(v)); len(marks) > 0 {
			return marks[0], true
		}
	case []any:
		for _, e := range v {
			if m, ok := markIn(e); ok {
				return m, true
			}
		}
	case map[string]any:
		for _, e := range v {
			if m, ok := markIn(e); ok {
				return m, true
			}
		}
	}
	return stackmark.Mark{}, false
}

// IDs are the ids the state holds of resources of type typ, and whether it holds any.
func (st State) IDs(typ string) ([]string, bool) {
	var out []string
	held := false
	for _, r := range st.Deployment.Resources {
		if string(r.Type) == typ {
			held = true
			out = append(out, string(r.ID))
		}
	}
	return out, held
}

// Protected are the resources of the state that deletion protection protects, as "type name".
func (st State) Protected() []string {
	var out []string
	for _, r := range st.Deployment.Resources {
		if r.Protect {
			out = append(out, string(r.Type)+" "+r.URN.Name())
		}
	}
	return out
}
