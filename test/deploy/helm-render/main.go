// helm-render: a stand-in for `helm template`, for Gatehouse's chart tests only. Helm is not
// packaged for the machines the tests run on; this uses the engine Helm is built on (Go
// text/template and sprig) and Helm's own template functions, so the chart's templates run
// through the same machinery. It is not Helm: no subcharts, hooks, .Files, `--set`, lint, or
// values.schema.json check (the tests check the values against the schema with ajv, on the
// merged values this prints with --values-json).
//
//	helm-render [--name NAME] [--namespace NS] [-f values.yaml]... [--kube-version v1.31.0]
//	            [--api-versions group/version]... [--values-json] CHART_DIR
//
// Output: like `helm template`, each object as a YAML document headed `# Source: <file>`.
// Errors go to stderr as "Error: ..." with exit status 1.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	semver "github.com/Masterminds/semver"
	yaml "gopkg.in/yaml.v2"
)

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// VersionSet answers .Capabilities.APIVersions.Has "group/version" (or "group/version/Kind").
type VersionSet []string

func (s VersionSet) Has(v string) bool {
	for _, item := range s {
		if item == v {
			return true
		}
	}
	return false
}

type KubeVersion struct{ Version, Major, Minor, GitVersion string }

type Capabilities struct {
	KubeVersion KubeVersion
	APIVersions VersionSet
}

// Documents are separated as Helm separates them: a line starting with "---".
var documentSeparator = regexp.MustCompile(`(?:^|\s*\n)---\s*`)

// The built-in API versions a cluster of --kube-version serves, for APIVersions.Has.
var builtinAPIVersions = []string{
	"v1", "apps/v1", "autoscaling/v1", "autoscaling/v2", "policy/v1", "networking.k8s.io/v1",
	"rbac.authorization.k8s.io/v1", "batch/v1",
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "Error: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	flags := flag.NewFlagSet("helm-render", flag.ContinueOnError)
	name := flags.String("name", "release-name", "release name")
	namespace := flags.String("namespace", "default", "release namespace")
	kubeVersion := flags.String("kube-version", "v1.31.0", "Kubernetes version for .Capabilities")
	valuesJSON := flags.Bool("values-json", false, "print the merged values as JSON instead of rendering")
	var valueFiles, apiVersions listFlag
	flags.Var(&valueFiles, "f", "values file (repeatable; later files win)")
	flags.Var(&valueFiles, "values", "values file (repeatable; later files win)")
	flags.Var(&apiVersions, "api-versions", "extra API version for .Capabilities.APIVersions (repeatable)")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if flags.NArg() != 1 {
		return fmt.Errorf("expected one chart directory, got %d arguments", flags.NArg())
	}
	chartDir := flags.Arg(0)

	meta, err := chartMetadata(filepath.Join(chartDir, "Chart.yaml"))
	if err != nil {
		return err
	}
	values, err := readValuesFile(filepath.Join(chartDir, "values.yaml"))
	if err != nil {
		return err
	}
	for _, file := range valueFiles {
		over, err := readValuesFile(file)
		if err != nil {
			return err
		}
		values = coalesce(values, over)
	}
	if *valuesJSON {
		return json.NewEncoder(os.Stdout).Encode(values)
	}

	chartName := meta["Name"].(string)
	files, err := readTemplates(chartDir, chartName)
	if err != nil {
		return err
	}
	e, err := newEngine(files)
	if err != nil {
		return err
	}
	version := strings.TrimPrefix(*kubeVersion, "v")
	parts := strings.SplitN(version, ".", 3)
	if len(parts) < 2 {
		return fmt.Errorf("--kube-version %q: expected vMAJOR.MINOR.PATCH", *kubeVersion)
	}
	// As Helm does before rendering: the chart's kubeVersion constraint against the cluster's.
	if constraint, _ := meta["KubeVersion"].(string); constraint != "" {
		c, err := semver.NewConstraint(constraint)
		if err != nil {
			return fmt.Errorf("Chart.yaml kubeVersion %q: %v", constraint, err)
		}
		v, err := semver.NewVersion(version)
		if err != nil {
			return fmt.Errorf("--kube-version %q: %v", *kubeVersion, err)
		}
		if !c.Check(v) {
			return fmt.Errorf("chart requires kubeVersion: %s which is incompatible with Kubernetes v%s", constraint, version)
		}
	}
	caps := Capabilities{
		KubeVersion: KubeVersion{Version: "v" + version, Major: parts[0], Minor: parts[1], GitVersion: "v" + version},
		APIVersions: append(VersionSet(builtinAPIVersions), apiVersions...),
	}
	release := map[string]interface{}{
		"Name": *name, "Namespace": *namespace, "Service": "Helm", "IsInstall": true, "IsUpgrade": false, "Revision": 1,
	}
	names := make([]string, 0, len(files))
	for n := range files {
		base := filepath.Base(n)
		if !strings.HasPrefix(base, "_") && base != "NOTES.txt" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var out strings.Builder
	for _, n := range names {
		data := map[string]interface{}{
			"Values": values, "Release": release, "Chart": meta, "Capabilities": caps,
			"Template": map[string]interface{}{"Name": n, "BasePath": chartName + "/templates"},
		}
		text, err := e.render(n, data)
		if err != nil {
			return err
		}
		for _, doc := range documentSeparator.Split(text, -1) {
			if !hasContent(doc) {
				continue
			}
			var parsed interface{}
			if err := yaml.Unmarshal([]byte(doc), &parsed); err != nil {
				return fmt.Errorf("YAML parse error on %s: %v", n, err)
			}
			fmt.Fprintf(&out, "---\n# Source: %s\n%s\n", n, strings.TrimSpace(doc))
		}
	}
	_, err = os.Stdout.WriteString(out.String())
	return err
}

// hasContent: anything but blank lines and comments.
func hasContent(doc string) bool {
	for _, line := range strings.Split(doc, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed != "" && !strings.HasPrefix(trimmed, "#") {
			return true
		}
	}
	return false
}

// readTemplates: every file under templates/, named "<chart>/templates/<path>".
func readTemplates(chartDir, chartName string) (map[string]string, error) {
	root := filepath.Join(chartDir, "templates")
	files := map[string]string{}
	err := filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files[chartName+"/templates/"+filepath.ToSlash(rel)] = string(text)
		return nil
	})
	return files, err
}
