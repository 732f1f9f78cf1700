// corral's bench: a driver that runs htsim's own TCP (NewReno) on the topology of
// corral's bench/dumbbell_newreno.toml, for bench/run.py --htsim-dumbbell. It is corral's
// file and only links against htsim's library (bench/README.md says how to build it).
// N senders, each with its own NIC queue and link into sw0; sw0 -> sw1 and sw1 -> receiver
// are shared, and so is the ACK path back. All links at -speed Mbps with -delay us of
// propagation; switch ports buffer -qs packets; 1500 B packets; unbounded flows starting
// within 10 us; runs -end seconds. htsim's sources open with a SYN, start at 10 packets
// with ssthresh 100, use a 250 ms minimum RTO, and their sinks ACK every packet.
#include "config.h"
#include <iostream>
#include <string.h>
#include <math.h>
#include "network.h"
#include "pipe.h"
#include "eventlist.h"
#include "tcp.h"
#include "queue.h"
#include <list>

string ntoa(double n);
string itoa(uint64_t n);

int main(int argc, char **argv) {
    EventList eventlist;
    int cnt = 8, qs = 100, speed = 1000, delay_us = 10;
    double end = 10;
    unsigned seed = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-conns")) cnt = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-qs")) qs = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-speed")) speed = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-delay")) delay_us = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-end")) end = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "-seed")) seed = atoi(argv[i + 1]);
    }
    srand(seed);
    eventlist.setEndtime(timeFromSec(end));
    Packet::set_packet_size(1500);
    linkspeed_bps rate = speedFromMbps((uint64_t)speed);
    simtime_picosec delay = timeFromUs((uint32_t)delay_us);
    mem_b buffer = memFromPkt(qs);

    Queue core(rate, buffer, eventlist, NULL), last(rate, buffer, eventlist, NULL);
    Queue back_nic(rate, buffer, eventlist, NULL), back_core(rate, buffer, eventlist, NULL);
    Pipe core_pipe(delay, eventlist), last_pipe(delay, eventlist), back_nic_pipe(delay, eventlist), back_core_pipe(delay, eventlist);
    TcpRtxTimerScanner scanner(timeFromMs(10), eventlist);
    vector<TcpSink*> sinks;
    for (int i = 0; i < cnt; i++) {
        TcpSrc* src = new TcpSrc(NULL, NULL, eventlist);
        TcpSink* sink = new TcpSink();
        sinks.push_back(sink);
        scanner.registerTcp(*src);
        route_t* out = new route_t();
        out->push_back(new Queue(rate, memFromPkt(1000), eventlist, NULL));
        out->push_back(new Pipe(delay, eventlist));
        out->push_back(&core); out->push_back(&core_pipe);
        out->push_back(&last); out->push_back(&last_pipe);
        out->push_back(sink);
        route_t* in = new route_t();
        in->push_back(&back_nic); in->push_back(&back_nic_pipe);
        in->push_back(&back_core); in->push_back(&back_core_pipe);
        in->push_back(new Queue(rate, buffer, eventlist, NULL));
        in->push_back(new Pipe(delay, eventlist));
        in->push_back(src);
        src->connect(*out, *in, *sink, drand() * timeFromUs((uint32_t)10));
    }
    while (eventlist.doNextEvent()) {}
    uint64_t total = 0;
    for (TcpSink* s : sinks) total += s->cumulative_ack();
    cout << "bytes_acked " << total << endl;
}
