"""The dumbbell of `bench/dumbbell_newreno.toml` built in ns-3 (3.44, the `ns3` PyPI wheel), for
`bench/side_by_side_tcp.py`.

Run it with the Python of a separate venv that has the wheel (it is no dependency of corral):

    /work/notes/ns3-venv/bin/python bench/ns3_dumbbell.py PARAMS.json   # prints a JSON result

PARAMS (all optional but `starts`): `senders` (8), `rate_bps` (1e9), `delay_s` (10e-6),
`buffer_pkts` (100), `duration_s` (1.0), `cc` ("newreno" | "cubic" | "dctcp" | "bbr"),
`size_bytes` (0: unbounded flows; else every flow sends this many bytes and the result gives
each flow's completion time, `fcts`, seconds from its start to the last byte received, None
if unfinished),
`starts` (one start time in seconds per flow: the side-by-side script passes corral's, so
both sides start their flows at the same instants), `segment_size` (1448: with ns-3's
default timestamp option a data packet is 1500 bytes of IP, 1502 on the wire with PPP's
header), `delack_count` (1: an ACK per segment, as the corral scenario), `min_rto_s` (0.2, as
the scenario; ns-3's own default is 1 s), `ecn_threshold_pkts` (20, DCTCP only),
`queue_interval_s` (10e-6), `cwnd_trace` (a path: flow 0's cwnd and the bottleneck queue
over time, as CSV), `flow_trace` (a path: every flow's state sampled every
`flow_trace_interval_s`, default 1 ms, as CSV: cwnd, ssthresh, bytes in flight, congestion
state, bytes acked, DCTCP's alpha with its updates and the bytes it counted marked and acked,
CWR entries, ACKs with ECE, the pacing rate, BBR's pacing gain and min RTT, the last RTT) and, to isolate a difference, `recovery` ("prr" | "classic"), `sack`,
`limited_transmit`, `sndbuf`/`rcvbuf` (bytes). Every other TCP setting is ns-3's default:
SACK, limited transmit and PRR on, initial window 10, timestamps on, 128 KiB socket buffers.

The network: `senders` hosts on router `l`, one receiver host on router `r`, every link
point-to-point at `rate_bps` with `delay_s`. Routers have no queue discipline: each output
port is the device's drop-tail queue of `buffer_pkts` packets, so the bottleneck (`l` -> `r`)
holds `buffer_pkts` waiting packets besides the one on the wire, as corral's port does (a
packet that finds it full is dropped by the traffic-control layer, which stopped the
device queue, and counted there). For
DCTCP the bottleneck is a RED queue disc marking every ECN-capable packet that finds
`ecn_threshold_pkts` or more queued (MinTh = MaxTh = K, weight 1, no gentle mode, no hard
drop) over a one-packet device queue. Hosts keep a 1000-packet FIFO queue disc over their
device (Linux's txqueuelen), so a sender never drops its own packets.

Statistics are gathered in C++ sinks (cppyy) so that tracing does not slow the run: the
bottleneck queue is sampled every `queue_interval_s`, each sender's congestion-state changes
count its fast recoveries (into CA_RECOVERY) and timeouts (into CA_LOSS), and a data
segment that starts below the highest sequence sent is a retransmission.
"""

from __future__ import annotations

import json
import sys

CPP = r"""
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/internet-module.h"
#include "ns3/applications-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"
#include <fstream>

namespace corral_bench {
using namespace ns3;

struct FlowCounters {
    uint64_t retransmits = 0, timeouts = 0, recoveries = 0;
    uint32_t high = 0;
    bool any = false;
};

std::vector<FlowCounters> flows;
double queue_sum = 0;
uint64_t queue_samples = 0;
std::vector<std::pair<double, uint32_t>> cwnd_trace;
std::vector<std::pair<double, uint32_t>> queue_trace;
bool trace_on = false;

uint32_t QueueLength(Ptr<NetDevice> dev, Ptr<QueueDisc> qd) {
    uint32_t n = DynamicCast<PointToPointNetDevice>(dev)->GetQueue()->GetNPackets();
    if (qd) n += qd->GetNPackets();
    return n;
}

void SampleQueue(Ptr<NetDevice> dev, Ptr<QueueDisc> qd, Time every) {
    uint32_t n = QueueLength(dev, qd);
    queue_sum += n;
    queue_samples += 1;
    if (trace_on) queue_trace.emplace_back(Simulator::Now().GetSeconds(), n);
    Simulator::Schedule(every, &SampleQueue, dev, qd, every);
}

void StartSampling(Ptr<NetDevice> dev, Ptr<QueueDisc> qd, Time every) {
    Simulator::Schedule(Seconds(0), &SampleQueue, dev, qd, every);
}

void OnCongState(FlowCounters* c, TcpSocketState::TcpCongState_t from, TcpSocketState::TcpCongState_t to) {
    if (to == TcpSocketState::CA_RECOVERY && from != TcpSocketState::CA_RECOVERY) c->recoveries++;
    if (to == TcpSocketState::CA_LOSS && from != TcpSocketState::CA_LOSS) c->timeouts++;
}

void OnTx(FlowCounters* c, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase> s) {
    uint32_t len = p->GetSize();
    if (len == 0) return;
    uint32_t seq = h.GetSequenceNumber().GetValue();
    uint32_t end = seq + len;
    // Sequence numbers of one flow stay far below wrap-around in these runs.
    if (c->any && seq < c->high) c->retransmits++;
    if (!c->any || end > c->high) c->high = end;
    c->any = true;
}

uint64_t tc_drops = 0;

void OnTcDrop(Ptr<const Packet> p) {
    tc_drops++;
}

void CountTcDrops(Ptr<Node> router) {
    bool ok = router->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext("TcDrop", MakeCallback(&OnTcDrop));
    NS_ABORT_MSG_UNLESS(ok, "no TcDrop trace on the traffic-control layer");
}

void OnCwnd(uint32_t from, uint32_t to) {
    cwnd_trace.emplace_back(Simulator::Now().GetSeconds(), to);
}

// Per-flow state for `flow_trace`: the last value of each traced quantity, and counters.
struct FlowState {
    uint32_t cwnd = 0, ssthresh = 0, in_flight = 0, cong_state = 0, high_ack = 0;
    double alpha = -1, pacing_bps = 0, min_rtt_us = -1, pacing_gain = 0, last_rtt_us = 0;
    uint64_t alpha_updates = 0, bytes_marked = 0, bytes_acked = 0, cwr_entries = 0, ece_acks = 0;
};
std::vector<FlowState> fstate;
std::ofstream flow_out;

void FsCwnd(FlowState* f, uint32_t, uint32_t v) { f->cwnd = v; }
void FsSsth(FlowState* f, uint32_t, uint32_t v) { f->ssthresh = v; }
void FsInflight(FlowState* f, uint32_t, uint32_t v) { f->in_flight = v; }
void FsHighAck(FlowState* f, SequenceNumber32, SequenceNumber32 v) { f->high_ack = v.GetValue(); }
void FsCong(FlowState* f, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t v) {
    if (v == TcpSocketState::CA_CWR && f->cong_state != TcpSocketState::CA_CWR) f->cwr_entries++;
    f->cong_state = v;
}
void FsPacing(FlowState* f, DataRate, DataRate v) { f->pacing_bps = v.GetBitRate(); }
void FsLastRtt(FlowState* f, Time, Time v) { f->last_rtt_us = v.GetMicroSeconds(); }
void FsMinRtt(FlowState* f, Time, Time v) { f->min_rtt_us = v.GetMicroSeconds(); }
void FsGain(FlowState* f, double, double v) { f->pacing_gain = v; }
void FsAlpha(FlowState* f, uint32_t marked, uint32_t acked, double alpha) {
    f->alpha = alpha;
    f->alpha_updates++;
    f->bytes_marked += marked;
    f->bytes_acked += acked;
}
void FsRx(FlowState* f, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase> s) {
    if (h.GetFlags() & TcpHeader::ECE) f->ece_acks++;
}

void HookFlowTrace(Ptr<Socket> s, uint32_t i) {
    fstate.resize(std::max<size_t>(fstate.size(), i + 1));
    FlowState* f = &fstate[i];
    s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&FsCwnd, f));
    s->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&FsSsth, f));
    s->TraceConnectWithoutContext("BytesInFlight", MakeBoundCallback(&FsInflight, f));
    s->TraceConnectWithoutContext("HighestRxAck", MakeBoundCallback(&FsHighAck, f));
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&FsCong, f));
    s->TraceConnectWithoutContext("PacingRate", MakeBoundCallback(&FsPacing, f));
    s->TraceConnectWithoutContext("LastRTT", MakeBoundCallback(&FsLastRtt, f));
    s->TraceConnectWithoutContext("Rx", MakeBoundCallback(&FsRx, f));
    PointerValue pv;
    s->GetAttribute("CongestionOps", pv);
    Ptr<Object> ops = pv.GetObject();
    if (DynamicCast<TcpDctcp>(ops)) {
        ops->TraceConnectWithoutContext("CongestionEstimate", MakeBoundCallback(&FsAlpha, f));
    }
    if (DynamicCast<TcpBbr>(ops)) {
        ops->TraceConnectWithoutContext("MinRtt", MakeBoundCallback(&FsMinRtt, f));
        ops->TraceConnectWithoutContext("PacingGain", MakeBoundCallback(&FsGain, f));
    }
}

void SampleFlows(Time every) {
    double now = Simulator::Now().GetSeconds();
    for (size_t i = 0; i < fstate.size(); i++) {
        FlowState& f = fstate[i];
        flow_out << now << "," << i << "," << f.cwnd << "," << f.ssthresh << "," << f.in_flight << ","
                 << f.cong_state << "," << f.high_ack << "," << f.alpha << "," << f.alpha_updates << ","
                 << f.bytes_marked << "," << f.bytes_acked << "," << f.cwr_entries << "," << f.ece_acks << ","
                 << f.pacing_bps << "," << f.pacing_gain << "," << f.min_rtt_us << "," << f.last_rtt_us << "\n";
    }
    Simulator::Schedule(every, &SampleFlows, every);
}

void StartFlowTrace(std::string path, Time every) {
    flow_out.open(path);
    flow_out << "time_s,flow,cwnd,ssthresh,in_flight,cong_state,acked,alpha,alpha_updates,bytes_marked,"
                "bytes_acked,cwr_entries,ece_acks,pacing_bps,pacing_gain,min_rtt_us,last_rtt_us\n";
    Simulator::Schedule(Seconds(0), &SampleFlows, every);
}

void CloseFlowTrace() { flow_out.close(); }

void Hook(Ptr<Application> app, uint32_t i, bool trace) {
    Ptr<Socket> s = DynamicCast<BulkSendApplication>(app)->GetSocket();
    FlowCounters* c = &flows[i];
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, c));
    s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTx, c));
    if (trace) s->TraceConnectWithoutContext("CongestionWindow", MakeCallback(&OnCwnd));
    if (flow_out.is_open()) HookFlowTrace(s, i);
}

// Sized flows (`size_bytes`): when each sink has received its flow's bytes.
struct SinkDone {
    uint64_t target = 0, bytes = 0;
    double done = -1;
};
std::vector<SinkDone> sinks_done;

void OnSinkRx(SinkDone* d, Ptr<const Packet> p, const Address& from) {
    d->bytes += p->GetSize();
    if (d->done < 0 && d->bytes >= d->target) d->done = Simulator::Now().GetSeconds();
}

void HookSink(Ptr<Application> sink, uint32_t i, uint64_t target) {
    SinkDone* d = &sinks_done.at(i);
    d->target = target;
    bool ok = sink->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnSinkRx, d));
    NS_ABORT_MSG_UNLESS(ok, "no Rx trace on the packet sink");
}

void ScheduleHook(Ptr<Application> app, uint32_t i, Time at, bool trace) {
    flows.resize(std::max<size_t>(flows.size(), i + 1));
    Simulator::Schedule(at, &Hook, app, i, trace);
}

void WriteTrace(std::string path) {
    std::ofstream out(path);
    out << "kind,time_s,value\n";
    for (auto& x : cwnd_trace) out << "cwnd," << x.first << "," << x.second << "\n";
    for (auto& x : queue_trace) out << "queue," << x.first << "," << x.second << "\n";
}
}
"""

CC_TYPES = {"newreno": "ns3::TcpNewReno", "cubic": "ns3::TcpCubic", "dctcp": "ns3::TcpDctcp", "bbr": "ns3::TcpBbr"}


def run(params: dict) -> dict:
    import cppyy
    from ns import ns

    cppyy.cppdef(CPP)
    cb = cppyy.gbl.corral_bench

    senders = int(params.get("senders", 8))
    rate = int(params.get("rate_bps", 1e9))
    delay = float(params.get("delay_s", 10e-6))
    buffer_pkts = int(params.get("buffer_pkts", 100))
    duration = float(params.get("duration_s", 1.0))
    cc = params.get("cc", "newreno")
    starts = params["starts"]
    assert len(starts) == senders, "one start time per sender"
    seg = int(params.get("segment_size", 1448))
    if cc not in CC_TYPES:
        raise SystemExit(f"cc: one of {sorted(CC_TYPES)}, got {cc!r}")

    cfg = ns.Config.SetDefault
    cfg("ns3::TcpL4Protocol::SocketType", ns.TypeIdValue(ns.TypeId.LookupByName(CC_TYPES[cc])))
    cfg("ns3::TcpSocket::SegmentSize", ns.UintegerValue(seg))
    cfg("ns3::TcpSocket::DelAckCount", ns.UintegerValue(int(params.get("delack_count", 1))))
    cfg("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(float(params.get("min_rto_s", 0.2)))))
    if "sndbuf" in params:
        cfg("ns3::TcpSocket::SndBufSize", ns.UintegerValue(int(params["sndbuf"])))
    if "rcvbuf" in params:
        cfg("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(int(params["rcvbuf"])))
    if "sack" in params:
        cfg("ns3::TcpSocketBase::Sack", ns.BooleanValue(bool(params["sack"])))
    if "limited_transmit" in params:
        cfg("ns3::TcpSocketBase::LimitedTransmit", ns.BooleanValue(bool(params["limited_transmit"])))
    if params.get("recovery") == "classic":
        cfg("ns3::TcpL4Protocol::RecoveryType", ns.TypeIdValue(ns.TypeId.LookupByName("ns3::TcpClassicRecovery")))
    if cc == "dctcp":
        cfg("ns3::TcpSocketBase::UseEcn", ns.StringValue("On"))
    if cc == "bbr":
        cfg("ns3::TcpSocketState::EnablePacing", ns.BooleanValue(True))

    routers = ns.NodeContainer()
    routers.Create(2)
    hosts = ns.NodeContainer()
    hosts.Create(senders + 1)
    stack = ns.InternetStackHelper()
    stack.Install(routers)
    stack.Install(hosts)

    p2p = ns.PointToPointHelper()
    p2p.SetDeviceAttribute("DataRate", ns.DataRateValue(ns.DataRate(rate)))
    p2p.SetChannelAttribute("Delay", ns.TimeValue(ns.Seconds(delay)))
    p2p.SetQueue("ns3::DropTailQueue", "MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{buffer_pkts}p")))
    host_fifo = ns.TrafficControlHelper()
    host_fifo.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", ns.QueueSizeValue(ns.QueueSize("1000p")))
    tch = ns.TrafficControlHelper()
    addr = ns.Ipv4AddressHelper()

    def connect(a, b, subnet):
        devs = p2p.Install(a, b)
        addr.SetBase(ns.Ipv4Address(subnet), ns.Ipv4Mask("255.255.255.0"))
        ifs = addr.Assign(devs)  # installs ns-3's default queue disc: replaced below
        for i in range(2):
            tch.Uninstall(devs.Get(i))
        return devs, ifs

    left, right = routers.Get(0), routers.Get(1)
    for i in range(senders):
        devs, _ = connect(hosts.Get(i), left, f"10.1.{i + 1}.0")
        host_fifo.Install(devs.Get(0))
    devs, recv_ifs = connect(hosts.Get(senders), right, "10.2.1.0")
    host_fifo.Install(devs.Get(0))
    if cc == "dctcp":
        p2p.SetQueue("ns3::DropTailQueue", "MaxSize", ns.QueueSizeValue(ns.QueueSize("1p")))
    core_devs, _ = connect(left, right, "10.3.1.0")
    bottleneck = core_devs.Get(0)
    qdisc = ns.Ptr[ns.QueueDisc]()
    if cc == "dctcp":
        k = float(params.get("ecn_threshold_pkts", 20))
        red = ns.TrafficControlHelper()
        red.SetRootQueueDisc(
            "ns3::RedQueueDisc",
            "MaxSize",
            ns.QueueSizeValue(ns.QueueSize(f"{buffer_pkts}p")),
            "MinTh",
            ns.DoubleValue(k),
            "MaxTh",
            ns.DoubleValue(k),
            "QW",
            ns.DoubleValue(1.0),
            "UseEcn",
            ns.BooleanValue(True),
            "UseHardDrop",
            ns.BooleanValue(False),
            "Gentle",
            ns.BooleanValue(False),
            "MeanPktSize",
            ns.UintegerValue(seg + 52),
            "LinkBandwidth",
            ns.DataRateValue(ns.DataRate(rate)),
            "LinkDelay",
            ns.TimeValue(ns.Seconds(delay)),
        )
        qdisc = red.Install(bottleneck).Get(0)
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()
    # With no queue disc, the traffic-control layer drops what arrives while the device queue
    # is full (stopped): those are the router's drops.
    cb.CountTcDrops(left)

    sinks = []
    size = int(params.get("size_bytes", 0))
    cb.sinks_done.resize(senders)
    dst = recv_ifs.GetAddress(0)
    trace_path = params.get("cwnd_trace")
    cb.trace_on = bool(trace_path)
    for i in range(senders):
        port = 5000 + i
        sink_helper = ns.PacketSinkHelper(
            "ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()
        )
        sink_apps = sink_helper.Install(hosts.Get(senders))
        sink_apps.Start(ns.Seconds(0.0))
        sinks.append(sink_apps.Get(0))
        if size:
            cb.HookSink(sink_apps.Get(0), i, size)
        src = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(dst, port).ConvertTo())
        src.SetAttribute("MaxBytes", ns.UintegerValue(size))
        src.SetAttribute("SendSize", ns.UintegerValue(seg * 16))
        apps = src.Install(hosts.Get(i))
        apps.Start(ns.Seconds(float(starts[i])))
        # The socket exists once the application has started.
        cb.ScheduleHook(apps.Get(0), i, ns.Seconds(float(starts[i])) + ns.NanoSeconds(1), bool(trace_path) and i == 0)
    cb.StartSampling(bottleneck, qdisc, ns.Seconds(float(params.get("queue_interval_s", 10e-6))))
    if params.get("flow_trace"):
        cb.fstate.resize(senders)
        cb.StartFlowTrace(str(params["flow_trace"]), ns.Seconds(float(params.get("flow_trace_interval_s", 1e-3))))

    ns.Simulator.Stop(ns.Seconds(duration))
    ns.Simulator.Run()

    goodputs = []
    for i, sink in enumerate(sinks):
        rx = ns.DynamicCast[ns.PacketSink](sink).GetTotalRx()
        goodputs.append(rx * 8 / (duration - float(starts[i])))
    dev_queue = ns.DynamicCast[ns.PointToPointNetDevice](bottleneck).GetQueue()
    drops = dev_queue.GetTotalDroppedPackets() + cb.tc_drops
    marks = None
    if cc == "dctcp":
        stats = qdisc.GetStats()
        drops += stats.nTotalDroppedPackets
        marks = stats.nTotalMarkedPackets
    if trace_path:
        cb.WriteTrace(trace_path)
    if params.get("flow_trace"):
        cb.CloseFlowTrace()
    flows = cb.flows
    fcts = None
    if size:
        fcts = [None if cb.sinks_done[i].done < 0 else cb.sinks_done[i].done - float(starts[i]) for i in range(senders)]
    ns.Simulator.Destroy()
    s, q = sum(goodputs), sum(g * g for g in goodputs)
    return {
        "throughput_bps": s,
        "goodputs_bps": goodputs,
        "jain": s * s / (len(goodputs) * q) if q > 0 else None,
        "mean_queue_pkts": cb.queue_sum / max(1, cb.queue_samples),
        "drops": int(drops),
        "ecn_marks": None if marks is None else int(marks),
        "retransmits": sum(int(flows[i].retransmits) for i in range(senders)),
        "timeouts": sum(int(flows[i].timeouts) for i in range(senders)),
        "fast_recoveries": sum(int(flows[i].recoveries) for i in range(senders)),
        "fcts": fcts,
    }


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as f:
        result = run(json.load(f))
    print(json.dumps(result))
