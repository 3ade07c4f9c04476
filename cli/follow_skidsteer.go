package cli

import "github.com/wheelgrad/wheelgrad/robots"

// followParamReaders read the parameter files of follow for the models
// whose robots adapter has no ParamReader yet: the skid-steer's lands with
// its adapter (robots/skidsteer.go), and this file goes then.
var followParamReaders = map[string]func(e env, path string) (robots.Params, error){
	"skidsteer": func(e env, path string) (robots.Params, error) { return readSkidsteerParams(e, path, true) },
}
