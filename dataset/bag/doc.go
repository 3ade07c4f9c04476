// Package bag imports ROS bags into wheelgrad's log CSV (FORMATS.md): ROS 2
// MCAP files (CDR-encoded messages, read with the foxglove mcap library) and
// ROS 1 bags (format 2.0, read by a small reader of this package).
//
// A Map (JSON) says which topic feeds which log columns and from which field
// of the message: geometry_msgs/Twist and TwistStamped (commands),
// nav_msgs/Odometry, sensor_msgs/JointState (wheel speeds by joint name),
// geometry_msgs/PoseStamped and tf2_msgs/TFMessage (motion capture; heading
// as the quaternion's yaw, unwrapped), and std_msgs numeric arrays (raw
// wheel commands). The messages are decoded here, in both wire formats, by
// small decoders of these standard types.
//
// The log is written as asynchronous streams: one row per message, sorted
// by time, with only its topic's columns filled; times are relative to the
// first row, whose absolute time a '#' comment records.
package bag
