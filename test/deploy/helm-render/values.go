package main

// Values and chart metadata as Helm sees them. Helm reads YAML through sigs.k8s.io/yaml,
// which goes YAML -> JSON -> Go values, so every number arrives as float64 and every map as
// map[string]interface{}; the same round trip is done here so that a template that trips on
// a float64 (`gt .Values.replicaCount 1` against an int) trips here too.

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	yaml "gopkg.in/yaml.v2"
)

// jsonShape turns what yaml.v2 decodes (map[interface{}]interface{}, int, ...) into the
// JSON shapes encoding/json would produce.
func jsonShape(v interface{}) (interface{}, error) {
	switch t := v.(type) {
	case map[interface{}]interface{}:
		m := make(map[string]interface{}, len(t))
		for k, item := range t {
			converted, err := jsonShape(item)
			if err != nil {
				return nil, err
			}
			m[fmt.Sprint(k)] = converted
		}
		return m, nil
	case []interface{}:
		out := make([]interface{}, len(t))
		for i, item := range t {
			converted, err := jsonShape(item)
			if err != nil {
				return nil, err
			}
			out[i] = converted
		}
		return out, nil
	}
	return v, nil
}

// parseYAMLDocument decodes YAML into JSON-shaped values (float64 numbers).
func parseYAMLDocument(text []byte) (interface{}, error) {
	var raw interface{}
	if err := yaml.Unmarshal(text, &raw); err != nil {
		return nil, err
	}
	shaped, err := jsonShape(raw)
	if err != nil {
		return nil, err
	}
	encoded, err := json.Marshal(shaped)
	if err != nil {
		return nil, err
	}
	var out interface{}
	if err := json.Unmarshal(encoded, &out); err != nil {
		return nil, err
	}
	return out, nil
}

func readValuesFile(file string) (map[string]interface{}, error) {
	text, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	doc, err := parseYAMLDocument(text)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if doc == nil {
		return map[string]interface{}{}, nil
	}
	m, ok := doc.(map[string]interface{})
	if !ok {
		return nil, fmt.Errorf("%s: values must be a mapping", file)
	}
	return m, nil
}

// coalesce lays `over` onto `base` as Helm does with -f files: maps merge key by key, any
// other value replaces, and a null in `over` deletes the key.
func coalesce(base, over map[string]interface{}) map[string]interface{} {
	out := make(map[string]interface{}, len(base))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		if v == nil {
			delete(out, k)
			continue
		}
		overMap, overIsMap := v.(map[string]interface{})
		baseMap, baseIsMap := out[k].(map[string]interface{})
		if overIsMap && baseIsMap {
			out[k] = coalesce(baseMap, overMap)
		} else {
			out[k] = v
		}
	}
	return out
}

// chartMetadata reads Chart.yaml into the names templates use: .Chart.Name, .Chart.Version,
// .Chart.AppVersion, ... (Helm's Metadata struct: the YAML key with its first letter upper
// case, apiVersion as APIVersion).
func chartMetadata(file string) (map[string]interface{}, error) {
	raw, err := readValuesFile(file)
	if err != nil {
		return nil, err
	}
	meta := make(map[string]interface{}, len(raw))
	for k, v := range raw {
		if k == "apiVersion" {
			meta["APIVersion"] = v
			continue
		}
		meta[strings.ToUpper(k[:1])+k[1:]] = v
	}
	for _, required := range []string{"Name", "Version"} {
		if s, _ := meta[required].(string); s == "" {
			return nil, fmt.Errorf("%s: %s is required", file, strings.ToLower(required))
		}
	}
	return meta, nil
}
