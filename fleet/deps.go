package fleet

import (
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
	_ "github.com/wheelgrad/wheelgrad/robots"
)
