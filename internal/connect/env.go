package connect

import (
	"os"
	"path/filepath"
)

// Env abstracts the process environment so tests need no globals.
type Env struct {
	Getenv func(string) string // nil means an empty environment
	Home   string              // $HOME; XDG_CONFIG_HOME is honoured through Getenv
}

// OSEnv is the real process environment.
func OSEnv() Env {
	home, _ := os.UserHomeDir() // no home only disables the ~/.config fallback
	return Env{Getenv: os.Getenv, Home: home}
}

func (e Env) get(key string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(key)
}

// configDir is where the nats CLI keeps its configuration, "" if unknown.
func (e Env) configDir() string {
	if dir := e.get("XDG_CONFIG_HOME"); dir != "" {
		return dir
	}
	if e.Home == "" {
		return ""
	}
	return filepath.Join(e.Home, ".config")
}
