/// Files written by the nookd before the journal and the history shared one log (commit
/// 8e32d87, debug build): a file written by either side must read the same on the other.
enum OldLogFiles {
    /// The journal after a shown card completed, a blocker took the glass, a card was updated
    /// in place and two were cancelled while pending (killed with SIGKILL).
    static let journal = Array((#"""
a6fa795d {"seq":1,"module":"default","at":1795649301.4220595,"activity":{"id":"985831a2-eb4d-4950-8daf-1a563b195408","title":"Shown then completed","subtitle":"onGlass ü \"quoted\"","tint":"accent","priority":"normal","dwell":0.2},"sender":{"uid":0,"pid":1077,"name":"nookctl"}}
80f95a7a {"shown":"985831a2-eb4d-4950-8daf-1a563b195408"}
f5197952 {"ended":"985831a2-eb4d-4950-8daf-1a563b195408"}
ee8679d3 {"seq":2,"module":"default","at":1795649303.1908925,"activity":{"id":"421afef3-831a-4c53-b5ab-a391bbd4854e","title":"Door open","tint":"accent","key":"door","priority":"high","dwell":2.4,"blocker":true},"sender":{"uid":0,"pid":1097,"name":"nookctl"}}
f2734bbf {"shown":"421afef3-831a-4c53-b5ab-a391bbd4854e"}
74337c28 {"seq":3,"module":"default","at":1795649304.3900166,"activity":{"id":"55caa63b-670f-49d5-9c00-fe71138328bf","title":"Build 3/7","subtitle":"compiling","tint":"accent","key":"build","priority":"normal","dwell":2.4,"progress":0.4},"sender":{"uid":0,"pid":1108,"name":"nookctl"}}
4228a1fb {"seq":4,"module":"default","at":1795649304.5100527,"activity":{"id":"4d0d69ae-40d1-4c53-92bc-cad281367609","title":"Cancelled while pending","tint":"accent","key":"gone","priority":"normal","dwell":2.4},"sender":{"uid":0,"pid":1116,"name":"nookctl"}}
1fc4805a {"seq":3,"module":"default","at":1795649304.3900166,"activity":{"id":"55caa63b-670f-49d5-9c00-fe71138328bf","title":"Build 5/7","subtitle":"compiling","tint":"accent","key":"build","priority":"normal","dwell":2.4,"progress":0.7},"sender":{"uid":0,"pid":1108,"name":"nookctl"}}
efc8d4c1 {"ended":"4d0d69ae-40d1-4c53-92bc-cad281367609"}
b4bf271b {"seq":5,"module":"default","at":1795649311.021996,"activity":{"id":"a02ce6f2-a942-4b87-a553-239aea39ebe9","title":"Another gone","tint":"accent","key":"x","priority":"normal","dwell":2.4},"sender":{"uid":0,"pid":1161,"name":"nookctl"}}
58c792a6 {"ended":"a02ce6f2-a942-4b87-a553-239aea39ebe9"}
"""# + "\n").utf8)

    /// The same journal after that nookd restarted on it: its start rewrote it with the two
    /// live activities, then the blocker took the glass again (one `shown` record).
    static let journalRestarted = Array((#"""
43f9c501 {"seq":1,"module":"default","at":1795649303.1908925,"activity":{"id":"421afef3-831a-4c53-b5ab-a391bbd4854e","title":"Door open","tint":"accent","key":"door","priority":"high","dwell":2.4,"blocker":true},"sender":{"uid":0,"pid":1097,"name":"nookctl"}}
8dfb55d1 {"seq":2,"module":"default","at":1795649304.3900166,"activity":{"id":"55caa63b-670f-49d5-9c00-fe71138328bf","title":"Build 5/7","subtitle":"compiling","tint":"accent","key":"build","priority":"normal","dwell":2.4,"progress":0.7},"sender":{"uid":0,"pid":1108,"name":"nookctl"}}
f2734bbf {"shown":"421afef3-831a-4c53-b5ab-a391bbd4854e"}
"""# + "\n").utf8)

    /// The history of the same run: a card shown to its end, two cancelled while pending.
    static let history = Array((#"""
5dac0cd9 {"number":1,"activity":{"id":"985831a2-eb4d-4950-8daf-1a563b195408","title":"Shown then completed","subtitle":"onGlass ü \"quoted\"","tint":"accent","priority":"normal","dwell":0.2},"module":"default","enqueuedAt":1795649301.4220343,"sender":{"uid":0,"pid":1077,"name":"nookctl"},"shownAt":1795649301.422508,"endedAt":1795649302.1656291,"ending":"completed","onGlass":true}
068078cf {"number":2,"activity":{"id":"4d0d69ae-40d1-4c53-92bc-cad281367609","title":"Cancelled while pending","tint":"accent","key":"gone","priority":"normal","dwell":2.4},"module":"default","enqueuedAt":1795649304.5100415,"sender":{"uid":0,"pid":1116,"name":"nookctl"},"endedAt":1795649310.8140757,"ending":"cancelled","onGlass":false}
b62b72b3 {"number":3,"activity":{"id":"a02ce6f2-a942-4b87-a553-239aea39ebe9","title":"Another gone","tint":"accent","key":"x","priority":"normal","dwell":2.4},"module":"default","enqueuedAt":1795649311.0219831,"sender":{"uid":0,"pid":1161,"name":"nookctl"},"endedAt":1795649311.4453464,"ending":"cancelled","onGlass":false}
"""# + "\n").utf8)
}
