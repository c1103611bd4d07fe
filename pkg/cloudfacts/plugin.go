package cloudfacts

// PluginResource is a custom resource clusterplane's own plugin manages for one of a cloud's kinds,
// where the cloud's Pulumi provider cannot (Civo's node pool): what the plugin's schema says of
// it. The kind whose module registers it serves it (componentprovider.Custom); the cloud's driver
// describes it, so that the schema's writer (pkg/pulumi/pulumischema) names no cloud.
type PluginResource struct {
	// Token is its type, e.g. "clusterplane:civo:NodePool".
	Token string
	// Description documents it in the schema.
	Description string
	// Inputs are its input properties, each with the JSON name of the field of the registering
	// kind's spec whose comment documents it; each is an output too.
	Inputs map[string]string
	// RequiredInputs are the inputs a program must set.
	RequiredInputs []string
	// Outputs are its output-only properties, each with the JSON name of the registering kind's
	// stack-outputs field that documents it.
	Outputs map[string]string
	// Settings are the plugin's configuration the resource reads, and SettingsUse says, in the
	// provider's description, what reads them.
	Settings    []PluginSetting
	SettingsUse string
}

// PluginSetting is one variable of the plugin's configuration.
type PluginSetting struct {
	Name, Description string
	// Secret says the value is a secret (a token).
	Secret bool
}
