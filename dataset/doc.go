// Package dataset reads and writes the CSV files of the wheelgrad toolkit:
// robot logs, control sequences, reference paths and simulated trajectories,
// in the format promised to users by FORMATS.md.
//
// Reading is driven by a Spec that says which columns a command needs. Read
// checks the whole file before anything is computed from it, so that a bad
// cell is reported as one line naming the file, the physical line and the
// column (a *ParseError), and never surfaces later as a NaN in a gradient:
//
//   - the file is UTF-8 (a leading byte order mark is ignored) with one header
//     row; lines starting with '#' are comments and blank lines are skipped,
//     both still counted in line numbers so that a user can open the file at
//     the line an error names;
//   - column order is free, names match case-insensitively with surrounding
//     spaces trimmed, and columns the Spec does not ask for are ignored;
//   - numbers are decimal (1, -0.5, 1e-3, +2); NaN and ±Inf are rejected,
//     and so are hexadecimal floats and digit separators, which Go's
//     strconv.ParseFloat would accept;
//   - an empty cell is allowed only in a Sparse column, e.g. a 60 Hz camera
//     pose between 240 Hz control rows, and reads as NaN;
//   - the time column increases strictly, within each run of a Group column
//     (such as the trajectory id traj) when the Spec names one.
//
// Real recordings come as asynchronous streams; ReadLog turns one into the
// table a model's Spec describes (streams.go): a row whose command cells are
// all empty is a sensor sample at its own time over which the previous
// command holds (HoldCommands), a separate sensor file is merged by time
// (MergeSensors), NAME_deg columns are converted and unwrapped
// (DegreesToRadians), a CommandMap maps logged channels to the model's
// commands, and an offset shifts the sensor clock. ReadStreams returns the
// two streams unmerged, for estimating that offset. A ColumnMap (columns.go)
// reads a recording whose columns are named, scaled or expressed otherwise
// (ros_time in ns, yaw from a quaternion, rpm): one implementation, applied
// through LogOptions.Columns by every model's reader, with row filters and a
// time range.
//
// Each model package reads its own log through ReadLog (its LogSpec, its
// RunsFromTable, its ReadLog): Table.Runs splits a table into runs by its
// group column, a model reports a bad row of a run as a *RowError, and the
// run's Origin (its table and first row) turns that into a *ParseError
// naming the file, the line and the column; Origin.CommandRows tells a run's
// command rows from its sensor rows, for a caller's gap policy. MapFor drops
// a command map for a file that already gives the model's own commands.
//
// Writing goes through Writer (or WriteCSV for all-numeric tables), which
// formats floats so that they read back bit for bit, to any io.Writer;
// WriteFile and WriteJSONFile write a complete rendering to a file for a
// library user (the command line stages its outputs all or nothing itself,
// package cli/stage). JSON parameter files are read by ReadJSON, which refuses what
// encoding/json would silently read otherwise than the file says (duplicate
// keys, keys differing only in case, arrays of the wrong length) and names
// the key of every error.
//
// The package will also hold what every command does to a log after reading
// it: numerical differentiation, segmenting, and synthetic log generators for
// the demo and tests. It imports only the standard library.
package dataset
