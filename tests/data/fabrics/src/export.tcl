# ibdmsh export.tcl TOPO: the nodes and links ibdm makes of an ibutils topology file,
# as "NODE name type ports" and "LINK name port peer peer-port width speed" lines.
set topo [lindex $argv 0]
set fabric [new_IBFabric]
if {[IBFabric_parseTopology $fabric $topo]} { puts stderr "cannot parse $topo"; exit 1 }
foreach nameNode [IBFabric_NodeByName_get $fabric] {
  set name [lindex $nameNode 0]; set node [lindex $nameNode 1]
  puts "NODE $name [IBNode_type_get $node] [IBNode_numPorts_get $node]"
  for {set pn 1} {$pn <= [IBNode_numPorts_get $node]} {incr pn} {
    set port [IBNode_getPort $node $pn]
    if {$port == ""} continue
    set rem [IBPort_p_remotePort_get $port]
    if {$rem == ""} continue
    set rnode [IBPort_p_node_get $rem]
    puts "LINK $name $pn [IBNode_name_get $rnode] [IBPort_num_get $rem] [IBPort_width_get $port] [IBPort_speed_get $port]"
  }
}
exit 0
