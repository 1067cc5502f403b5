package main

// The template engine: Go text/template with sprig's function map, as Helm uses it, plus the
// functions Helm adds itself (include, tpl, required, fail, toYaml, fromYaml, toJson,
// fromJson, lookup). Written against Helm's documented behaviour: templates see each other
// by their path in the chart ("gatehouse/templates/x.yaml"), a missing map key renders as
// empty, `required` and `fail` abort with their message, and lookup finds nothing (as in
// `helm template`, which has no cluster).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"text/template"

	sprig "github.com/Masterminds/sprig"
	yaml "gopkg.in/yaml.v2"
)

// Helm wraps the messages of required and fail so that the error cleanup below can find
// them inside text/template's longer error string.
const (
	messageOpen  = "HELM["
	messageClose = "]HELM"
)

var wrappedMessage = regexp.MustCompile(`HELM\[(.*)\]HELM`)

// Recursion bound for include, as in Helm, so a template that includes itself fails
// instead of exhausting the stack.
const maxIncludeDepth = 1000

type engine struct {
	root  *template.Template
	depth int
}

func wrap(message string) string { return messageOpen + message + messageClose }

// toYAML follows Helm's toYaml: through JSON first (so struct tags and float64 numbers come
// out as JSON would have them), then YAML with sorted keys, without the final newline.
func toYAML(v interface{}) string {
	encoded, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	var generic interface{}
	if err := yaml.Unmarshal(encoded, &generic); err != nil {
		return ""
	}
	out, err := yaml.Marshal(generic)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(out), "\n")
}

func fromYAML(text string) map[string]interface{} {
	doc, err := parseYAMLDocument([]byte(text))
	if err != nil {
		return map[string]interface{}{"Error": err.Error()}
	}
	if m, ok := doc.(map[string]interface{}); ok {
		return m
	}
	return map[string]interface{}{}
}

func toJSON(v interface{}) string {
	encoded, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(encoded)
}

func fromJSON(text string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func (e *engine) funcs() template.FuncMap {
	f := sprig.TxtFuncMap()
	// Helm removes these: a chart must not read the environment of whoever renders it.
	delete(f, "env")
	delete(f, "expandenv")
	f["toYaml"] = toYAML
	f["fromYaml"] = fromYAML
	f["toJson"] = toJSON
	f["fromJson"] = fromJSON
	f["include"] = e.include
	f["tpl"] = e.tpl
	f["required"] = func(message string, v interface{}) (interface{}, error) {
		if v == nil {
			return v, errors.New(wrap(message))
		}
		if s, ok := v.(string); ok && s == "" {
			return v, errors.New(wrap(message))
		}
		return v, nil
	}
	f["fail"] = func(message string) (string, error) { return "", errors.New(wrap(message)) }
	f["lookup"] = func(apiVersion, kind, namespace, name string) (map[string]interface{}, error) {
		return map[string]interface{}{}, nil
	}
	return f
}

func (e *engine) include(name string, data interface{}) (string, error) {
	if e.depth >= maxIncludeDepth {
		return "", fmt.Errorf("rendering template has a nested reference name: %s", name)
	}
	e.depth++
	defer func() { e.depth-- }()
	var out bytes.Buffer
	if err := e.root.ExecuteTemplate(&out, name, data); err != nil {
		return "", err
	}
	return out.String(), nil
}

// tpl renders a string as a template, with the chart's named templates in reach.
func (e *engine) tpl(text string, data interface{}) (string, error) {
	clone, err := e.root.Clone()
	if err != nil {
		return "", err
	}
	t, err := clone.New("tpl").Parse(text)
	if err != nil {
		return "", fmt.Errorf("cannot parse template %q: %v", text, err)
	}
	var out bytes.Buffer
	if err := t.Execute(&out, data); err != nil {
		return "", err
	}
	return strings.ReplaceAll(out.String(), "<no value>", ""), nil
}

// newEngine parses every template file (name -> text) into one set.
func newEngine(files map[string]string) (*engine, error) {
	e := &engine{}
	e.root = template.New("chart").Option("missingkey=zero").Funcs(e.funcs())
	for name, text := range files {
		if _, err := e.root.New(name).Parse(text); err != nil {
			return nil, fmt.Errorf("parse error in %s: %v", name, err)
		}
	}
	return e, nil
}

// render executes one file's template. Errors from required and fail become Helm's
// "execution error at (file:line:col): message".
func (e *engine) render(name string, data interface{}) (string, error) {
	var out bytes.Buffer
	if err := e.root.ExecuteTemplate(&out, name, data); err != nil {
		return "", cleanError(name, err)
	}
	return strings.ReplaceAll(out.String(), "<no value>", ""), nil
}

func cleanError(name string, err error) error {
	var execErr template.ExecError
	if !errors.As(err, &execErr) {
		return err
	}
	parts := strings.SplitN(err.Error(), ": ", 3)
	if len(parts) != 3 {
		return fmt.Errorf("execution error at (%s): %v", name, err)
	}
	if m := wrappedMessage.FindStringSubmatch(parts[2]); len(m) >= 2 {
		return fmt.Errorf("execution error at (%s): %s", parts[1], m[1])
	}
	return err
}
