package pko

import (
	"strings"

	"github.com/pkg/errors"
	"sigs.k8s.io/yaml"
)

// NamespaceFile is the name (without ".yaml") of the file holding what the whole namespace needs:
// no Stack's name starts with a digit, and kubectl apply -f DIR applies it first.
const NamespaceFile = "00-clusterplane"

// DefaultKubectlImage is the image the drift CronJob runs kubectl in: the Kubernetes project's
// own kubectl image, which runs kubectl with no shell.
const DefaultKubectlImage = "registry.k8s.io/kubectl:v1.34.1"

// driftKey is the ConfigMap key holding the Updates the drift CronJob creates.
const driftKey = "updates.yaml"

// driftTTL is how long PKO keeps a finished scheduled drift Update: long enough to read the last
// runs' results, short enough that a schedule does not pile them up.
const driftTTL = "24h"

// Namespace is what every exported Stack needs in its namespace besides the Secret: the
// ServiceAccount their workspace pods run as and its ClusterRoleBinding to system:auth-delegator
// (PKO's installation guide), and with DriftSchedule the CronJob that creates a preview Update
// per stack on that schedule, with the account, Role and RoleBinding that let it create Updates
// and nothing else. files are the export's, whose Stacks the CronJob checks.
func Namespace(files []File, opts Options) (File, error) {
	if opts.ServiceAccount == "" {
		return File{}, errors.New("the service account is required")
	}
	ns := opts.namespace()
	objects := []map[string]any{
		{
			"apiVersion": "v1",
			"kind":       "ServiceAccount",
			"metadata":   plainMetadata(opts.ServiceAccount, opts),
		},
		{
			"apiVersion": "rbac.authorization.k8s.io/v1",
			"kind":       "ClusterRoleBinding",
			// Cluster-wide: the name carries the namespace so that two namespaces' exports differ.
			"metadata": clusterMetadata("clusterplane:" + ns + ":" + opts.ServiceAccount + ":auth-delegator"),
			"roleRef": map[string]any{
				"apiGroup": "rbac.authorization.k8s.io",
				"kind":     "ClusterRole",
				"name":     AuthDelegator,
			},
			"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": opts.ServiceAccount, "namespace": ns}},
		},
	}
	if opts.DriftSchedule != "" {
		drift, err := driftSchedule(files, opts)
		if err != nil {
			return File{}, err
		}
		objects = append(objects, drift...)
	}
	return File{Name: NamespaceFile, Objects: objects}, nil
}

func clusterMetadata(name string) map[string]any {
	return map[string]any{
		"name":   name,
		"labels": map[string]any{"app.kubernetes.io/managed-by": "clusterplane"},
	}
}

// DriftName is the name of the drift CronJob and of its ServiceAccount, Role, RoleBinding and
// ConfigMap.
func DriftName(opts Options) string { return opts.ServiceAccount + "-drift" }

// driftSchedule is the CronJob that creates, on the schedule, a fresh Update per stack (preview,
// refresh, expectNoChanges: drift reported, never undone), and the least it needs to: kubectl
// create of Updates from a ConfigMap, as an account allowed to create Updates and nothing else.
// Each Update has a generated name, so that every run makes a new one.
func driftSchedule(files []File, opts Options) ([]map[string]any, error) {
	if fields := strings.Fields(opts.DriftSchedule); len(fields) != 5 && !strings.HasPrefix(opts.DriftSchedule, "@") {
		return nil, errors.Errorf("drift schedule %q: want a cron schedule of 5 fields (\"0 6 * * *\") or @hourly, @daily, @weekly", opts.DriftSchedule)
	}
	if len(files) == 0 {
		return nil, errors.New("a drift schedule needs at least one stack")
	}
	image := opts.KubectlImage
	if image == "" {
		image = DefaultKubectlImage
	}
	updates, err := driftUpdates(files, opts)
	if err != nil {
		return nil, err
	}
	name := DriftName(opts)
	ns := opts.namespace()
	return []map[string]any{
		{
			"apiVersion": "v1",
			"kind":       "ServiceAccount",
			"metadata":   plainMetadata(name, opts),
		},
		{
			"apiVersion": "rbac.authorization.k8s.io/v1",
			"kind":       "Role",
			"metadata":   plainMetadata(name, opts),
			"rules": []any{map[string]any{
				"apiGroups": []any{"auto.pulumi.com"},
				"resources": []any{"updates"},
				"verbs":     []any{"create"},
			}},
		},
		{
			"apiVersion": "rbac.authorization.k8s.io/v1",
			"kind":       "RoleBinding",
			"metadata":   plainMetadata(name, opts),
			"roleRef":    map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
			"subjects":   []any{map[string]any{"kind": "ServiceAccount", "name": name, "namespace": ns}},
		},
		{
			"apiVersion": "v1",
			"kind":       "ConfigMap",
			"metadata":   plainMetadata(name, opts),
			"data":       map[string]any{driftKey: updates},
		},
		{
			"apiVersion": "batch/v1",
			"kind":       "CronJob",
			"metadata":   plainMetadata(name, opts),
			"spec": map[string]any{
				"schedule": opts.DriftSchedule,
				// A check still running when the next is due is not doubled.
				"concurrencyPolicy": "Forbid",
				"jobTemplate": map[string]any{"spec": map[string]any{
					"backoffLimit": 2,
					"template": map[string]any{"spec": map[string]any{
						"serviceAccountName": name,
						"restartPolicy":      "Never",
						"containers": []any{map[string]any{
							"name":  "create-updates",
							"image": image,
							"args":  []any{"create", "-f", "/drift/" + driftKey},
							"volumeMounts": []any{map[string]any{
								"name": "updates", "mountPath": "/drift", "readOnly": true,
							}},
						}},
						"volumes": []any{map[string]any{
							"name":      "updates",
							"configMap": map[string]any{"name": name},
						}},
					}},
				}},
			},
		},
	}, nil
}

// driftUpdates are the Updates the drift CronJob creates, one a stack, as one YAML stream.
func driftUpdates(files []File, opts Options) (string, error) {
	var updates strings.Builder
	for i, f := range files {
		m := metadata(f.Name+"-drift", f.Target, opts)
		delete(m, "name")
		m["generateName"] = f.Name + "-drift-"
		data, err := yaml.Marshal(map[string]any{
			"apiVersion": "auto.pulumi.com/v1alpha1",
			"kind":       "Update",
			"metadata":   m,
			"spec":       driftSpec(f, driftTTL),
		})
		if err != nil {
			return "", errors.Wrap(err, "marshal a drift Update")
		}
		if i > 0 {
			updates.WriteString("---\n")
		}
		updates.Write(data)
	}
	return updates.String(), nil
}

// driftSpec is the Update that previews a Stack with expectNoChanges: it fails when the clouds
// differ from the manifest, and changes nothing. ttl, when set, has PKO delete it once done.
func driftSpec(f File, ttl string) map[string]any {
	spec := map[string]any{
		// PKO names a Stack's workspace after the Stack.
		"workspaceName":   f.Name,
		"stackName":       "organization/" + f.Target.Project + "/" + f.Target.Stack,
		"type":            "preview",
		"refresh":         true,
		"expectNoChanges": true,
	}
	if ttl != "" {
		spec["ttlAfterCompleted"] = ttl
	}
	return spec
}
