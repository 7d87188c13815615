// The live dashboard: figures now, members, and the history charts (read
// share and pending depth per member, bandwidth, IOPS, latency, RAID5's
// stripe queues when the level publishes them). Marks on the time axis are
// tunable changes and member events.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import RaidScope

Flickable {
    id: page
    property LiveSession session
    readonly property TelemetryModel tm: session ? session.telemetry : null
    readonly property var memberProfiles: {
        const out = []
        if (!session || session.tunables.revision < 0) return out
        const n = tm ? tm.members.length : 0
        for (let i = 0; i < n; ++i) out.push(session.tunables.value("rd" + i + "/device_profile") || "none")
        return out
    }
    // The whole dashboard fits the window (the charts share the height left
    // under the figures and members); below a chart's minimum it scrolls.
    // A Flickable, not a ScrollView: the view's size must not depend on the
    // content's (a scroll bar showing up would resize what it scrolls).
    // The scroll bar (small windows only) takes its width off the content's
    // (narrower content is never shorter, so it cannot turn itself off).
    readonly property real availableWidth: width - (vbar.visible ? vbar.width + 2 : 0)
    contentWidth: width
    contentHeight: holder.height
    clip: true
    boundsBehavior: Flickable.StopAtBounds
    // Decided after the layout pass, not inside it: the bar narrows the
    // content, and a layout resized from within its own pass crashed
    // (Qt 6.4's GridLayout).
    property bool overflowing: false
    function updateOverflow() { overflowing = contentHeight > height }
    onContentHeightChanged: Qt.callLater(updateOverflow)
    onHeightChanged: Qt.callLater(updateOverflow)
    ScrollBar.vertical: ScrollBar { id: vbar; policy: page.overflowing ? ScrollBar.AlwaysOn : ScrollBar.AlwaysOff }

    Item {
        id: holder
        width: page.availableWidth
        height: Math.max(page.height, body.minimumHeight)
    ColumnLayout {
        id: body
        anchors.fill: parent
        // What the content needs with every chart at its minimum height,
        // from the laid-out heights of the rest (a layout's implicitHeight
        // read here would lay it out inside this binding: a binding loop).
        readonly property real minimumHeight: {
            let h = 0, n = 0
            for (let i = 0; i < children.length; ++i) {
                const c = children[i]
                if (!c.visible || c === charts) continue
                h += c.height
                ++n
            }
            let cells = 0
            for (let i = 0; i < charts.children.length; ++i) if (charts.children[i].visible) ++cells
            const rows = Math.ceil(cells / charts.columns)
            return h + n * spacing + rows * charts.chartMinimum + Math.max(0, rows - 1) * charts.rowSpacing
        }
        spacing: Theme.spacing

        Label {
            visible: !page.tm || !page.tm.hasData
            Layout.fillWidth: true
            Layout.topMargin: 4
            wrapMode: Text.Wrap
            // An open array samples with or without a workload.
            text: page.session && (page.session.busy || page.session.tunables.count > 0)
                  ? qsTr("Waiting for the first sample…")
                  : qsTr("No array is open. Open or create one on the Arrays page to see it live.")
            opacity: 0.7
        }

        // Six tiles in one row at any width (the figures and labels shrink
        // to fit a narrow window rather than elide). Two rows of three in a
        // narrow one was tried: changing the count made minimumHeight a
        // binding loop.
        RowLayout {
            objectName: "tiles"
            Layout.fillWidth: true
            spacing: Theme.spacing
            StatTile {
                stale: page.session ? !page.session.live : false
                objectName: "tileBandwidth"
                Layout.fillWidth: true
                label: qsTr("Read bandwidth")
                value: page.tm ? Theme.bandwidth(page.tm.readBandwidth) : "–"
                window: page.tm ? page.tm.intervalText : ""
                detail: qsTr("Array reads completed per second over the last sample interval")
                accent: Theme.seriesColors[0]
            }
            StatTile {
                stale: page.session ? !page.session.live : false
                Layout.fillWidth: true
                label: qsTr("Write bandwidth")
                value: page.tm ? Theme.bandwidth(page.tm.writeBandwidth) : "–"
                accent: Theme.seriesColors[1]
                window: page.tm ? page.tm.intervalText : ""
                detail: qsTr("Array writes completed per second over the last sample interval")
            }
            StatTile {
                stale: page.session ? !page.session.live : false
                objectName: "tileIops"
                Layout.fillWidth: true
                label: qsTr("IOPS")
                value: page.tm ? Theme.count(page.tm.readIops + page.tm.writeIops) : "–"
                accent: Theme.seriesColors[2]
                window: page.tm ? page.tm.intervalText : ""
                detail: qsTr("Array I/Os (reads and writes) completed per second over the last sample interval")
            }
            StatTile {
                stale: page.session ? !page.session.live : false
                Layout.fillWidth: true
                label: qsTr("Latency p50")
                value: page.tm ? Theme.ms(page.tm.p50Ms) : "–"
                accent: Theme.seriesColors[3]
                window: page.tm ? page.tm.intervalText : ""
                detail: qsTr("Median completion latency of the array I/Os completed in the last sample interval")
            }
            StatTile {
                stale: page.session ? !page.session.live : false
                Layout.fillWidth: true
                objectName: "tileP99"
                label: qsTr("Latency p99")
                window: page.tm ? page.tm.intervalText : ""
                value: page.tm ? Theme.ms(page.tm.p99Ms) : "–"
                accent: Theme.seriesColors[5]
                detail: qsTr("99th percentile completion latency of the array I/Os completed in the last sample interval; the latency chart's legend gives the peak of the chart's window")
            }
            StatTile {
                stale: page.session ? !page.session.live : false
                Layout.fillWidth: true
                label: qsTr("Pending")
                value: page.tm ? page.tm.totalPending.toFixed(0) : "–"
                accent: Theme.seriesColors[4]
                window: qsTr("now")
                detail: qsTr("Member I/Os in flight now, all members together")
            }
        }

        MembersPanel {
            objectName: "membersPanel"
            Layout.fillWidth: true
            members: page.tm ? page.tm.members : []
            profiles: page.memberProfiles
            // RAID5 has no read policy: then no subtitle.
            readonly property string policy: page.session && page.session.tunables.revision >= 0
                                             ? page.session.tunables.value("read_policy") : ""
            subtitle: policy ? qsTr("read policy: %1").arg(policy) : ""
        }

        // Delegates are keyed by count, not by the list (which is new every
        // sample), so they are not rebuilt 20 times a second.
        Repeater {
            model: page.tm ? page.tm.tasks.length : 0
            Card {
                readonly property var task: page.tm.tasks[index] || ({})
                Layout.fillWidth: true
                title: task.kind || ""
                objectName: "taskCard_" + index
                subtitle: Theme.taskText(task)
                ProgressBar {
                    anchors { left: parent.left; right: parent.right; top: parent.top }
                    value: task.fraction || 0
                }
            }
        }

        // Three columns on a wide window, two on a narrow one; the charts
        // share the height left, at least chartMinimum each.
        GridLayout {
            id: charts
            // 170 px, plus what the tallest legend takes beyond one row
            // (four long member names wrap; the plot keeps its height).
            readonly property int chartMinimum: {
                let extra = 0
                for (let i = 0; i < children.length; ++i)
                    if (children[i].visible && children[i].legendExtra !== undefined) extra = Math.max(extra, children[i].legendExtra)
                return 170 + Math.ceil(extra)
            }
            Layout.fillWidth: true
            Layout.fillHeight: true
            columns: page.availableWidth > 1000 ? 3 : 2
            columnSpacing: Theme.spacing
            rowSpacing: Theme.spacing
            ChartCard {
                stale: page.session ? !page.session.live : false
                objectName: "shareChart"
                Layout.fillWidth: true
                Layout.fillHeight: true
                Layout.minimumHeight: charts.chartMinimum
                Layout.preferredHeight: charts.chartMinimum
                Layout.preferredWidth: 1
                title: qsTr("Read share per member")
                model: page.tm
                metric: "share"
                legendStat: "mean"
                unit: "%"
                fixedMax: 100
                help: qsTr("Each member's part of the array's reads, over the last half second")
                emptyText: qsTr("No reads in this window")
            }
            ChartCard {
                stale: page.session ? !page.session.live : false
                objectName: "pendingChart"
                Layout.fillWidth: true
                Layout.fillHeight: true
                Layout.minimumHeight: charts.chartMinimum
                Layout.preferredHeight: charts.chartMinimum
                Layout.preferredWidth: 1
                title: qsTr("Pending depth per member")
                model: page.tm
                metric: "pending"
                legendStat: "mean"
                help: qsTr("Member I/Os in flight, averaged over the last half second")
            }
            ChartCard {
                stale: page.session ? !page.session.live : false
                objectName: "bandwidthChart"
                Layout.fillWidth: true
                Layout.fillHeight: true
                Layout.minimumHeight: charts.chartMinimum
                Layout.preferredHeight: charts.chartMinimum
                Layout.preferredWidth: 1
                title: qsTr("Bandwidth")
                model: page.tm
                metric: "bandwidth"
                legendStat: "mean"
                unit: "MB/s"
                help: qsTr("Array reads and writes completed per second, in MB/s")
            }
            ChartCard {
                stale: page.session ? !page.session.live : false
                objectName: "iopsChart"
                Layout.fillWidth: true
                Layout.fillHeight: true
                Layout.minimumHeight: charts.chartMinimum
                Layout.preferredHeight: charts.chartMinimum
                Layout.preferredWidth: 1
                title: qsTr("IOPS")
                model: page.tm
                metric: "iops"
                legendStat: "mean"
                help: qsTr("Array reads and writes completed per second")
            }
            ChartCard {
                stale: page.session ? !page.session.live : false
                objectName: "latencyChart"
                Layout.fillWidth: true
                Layout.fillHeight: true
                Layout.minimumHeight: charts.chartMinimum
                Layout.preferredHeight: charts.chartMinimum
                Layout.preferredWidth: 1
                title: qsTr("Completion latency")
                model: page.tm
                metric: "latency"
                legendStat: "peak"
                unit: "ms"
                help: qsTr("Median and 99th percentile completion latency of the array I/Os of each sample interval; the legend gives the highest of the chart's window")
                emptyText: qsTr("No I/O completed in this window")
            }
            ChartCard {
                stale: page.session ? !page.session.live : false
                objectName: "raid5Chart"
                visible: page.tm && page.tm.hasRaid5 && lineCount > 0
                Layout.fillWidth: true
                Layout.fillHeight: true
                Layout.minimumHeight: charts.chartMinimum
                Layout.preferredHeight: charts.chartMinimum
                Layout.preferredWidth: 1
                title: qsTr("RAID5 stripe queues")
                model: page.tm
                metric: "raid5"
                legendStat: "mean"
                help: qsTr("Lengths of the stripe lists (handle, hold, delayed, inactive) and the active stripes")
            }
            ChartCard {
                stale: page.session ? !page.session.live : false
                objectName: "raid5WritesChart"
                visible: page.tm && page.tm.hasRaid5 && lineCount > 0
                Layout.fillWidth: true
                Layout.fillHeight: true
                Layout.minimumHeight: charts.chartMinimum
                Layout.preferredHeight: charts.chartMinimum
                Layout.preferredWidth: 1
                title: qsTr("RAID5 writes")
                unit: "/s"
                model: page.tm
                metric: "raid5_writes"
                legendStat: "mean"
                help: qsTr("Full-stripe, read-modify-write and reconstruct-write stripe writes and prereads per second")
            }
            SectionsPanel {
                objectName: "sectionsPanel"
                // Takes the rest of the last row (two cells with RAID5's charts).
                readonly property int chartCount: {
                    let n = 0
                    for (let i = 0; i < charts.children.length; ++i)
                        if (charts.children[i] instanceof ChartCard && charts.children[i].visible) ++n
                    return n
                }
                Layout.columnSpan: Math.max(1, charts.columns - chartCount % charts.columns)
                Layout.fillWidth: true
                Layout.fillHeight: true
                Layout.minimumHeight: Math.min(implicitHeight, charts.chartMinimum)
                Layout.preferredWidth: 1
                clip: true
                sections: page.tm ? page.tm.sections : []
            }
        }
    }
}
}
