// A live time chart in a card: a Qt Charts ChartView fed from C++ by a
// ChartFeed (its series replaced in bulk, decimated to the plot's width;
// the points never pass through QML). This styles it from the palette and
// draws the legend and the marks over it, elided as the window's text is.
import QtQuick
import QtQuick.Controls
import QtCharts
import RaidScope

Card {
    id: cc
    property alias model: feed.model
    property alias metric: feed.metric
    property alias unit: feed.unit
    property alias fixedMax: feed.fixedMax
    property alias window: feed.window
    // What the legend's figures are (newest, mean or peak of the window),
    // said next to the title so they can be reconciled with the tiles.
    property alias legendStat: feed.legendStat
    property alias feed: feed
    // Greyed, with "stopped" in the title, when the figures are not live.
    property bool stale: false
    readonly property int lineCount: feed.lineNames.length
    // The legend's height beyond one row (it wraps rather than cut names):
    // the dashboard gives the cards that much more so the plot keeps its height.
    readonly property real legendExtra: Math.max(0, legendRow.height - metrics.height - 4)
    subtitle: (stale ? qsTr("stopped · ") : "") + (feed.axisUnit.length ? feed.axisUnit + " · " : "") + feed.legendNote
    property string help
    implicitHeight: 230
    SystemPalette { id: cpal; colorGroup: SystemPalette.Active }
    readonly property color gridColor: Qt.tint(cpal.base, Qt.rgba(cpal.windowText.r, cpal.windowText.g, cpal.windowText.b, 0.18))
    readonly property font smallFont: Qt.font({ family: Qt.application.font.family,
                                                 pointSize: Math.max(7, Qt.application.font.pointSize - 1) })
    ToolTip.visible: help.length > 0 && chartHover.hovered
    ToolTip.text: help
    ToolTip.delay: 800
    HoverHandler { id: chartHover }

    ChartFeed {
        id: feed
        axisX: axisX
        axisY: axisY
        plotWidth: view.plotArea.width
        plotHeight: view.plotArea.height
        lineHeight: metrics.height
        active: cc.visible
        onLinesChanged: cc.makeSeries()
    }
    FontMetrics { id: metrics; font: cc.smallFont }
    // The feed's lists made JavaScript arrays once per change, not once
    // per delegate that reads an entry.
    readonly property var legendEntries: feed.legend
    readonly property var markEntries: feed.marks

    // One line series per line of the model, in its colours (the members'
    // colours, the same in every chart, bar and list).
    function makeSeries() {
        view.removeAllSeries()
        const made = []
        for (let i = 0; i < feed.lineNames.length; ++i) {
            const s = view.createSeries(ChartView.SeriesTypeLine, feed.lineNames[i], axisX, axisY)
            s.color = Theme.memberColor(i)
            s.width = 2
            made.push(s)
        }
        feed.series = made
    }

    Flow {
        id: legendRow
        objectName: "chartLegend"
        anchors { left: parent.left; right: parent.right; top: parent.top }
        spacing: 12
        opacity: cc.stale ? 0.55 : 1
        Repeater {
            model: feed.lineNames.length
            Row {
                readonly property var entry: cc.legendEntries[index] || ({ name: "", value: "" })
                spacing: 4
                Rectangle { width: 10; height: 8; radius: 2; color: Theme.memberColor(index); anchors.verticalCenter: parent.verticalCenter }
                Row {
                    Label {
                        objectName: "legendName"
                        text: entry.name
                        font: cc.smallFont
                        elide: Text.ElideMiddle
                        // Whole names: the legend wraps to another row rather than
                        // cutting them ("ha…le, d…d"); only a name longer than the
                        // row is elided, in the middle (where file names differ least).
                        width: Math.min(implicitWidth, Math.max(40, legendRow.width - 80))
                    }
                    Label { text: entry.value.length ? ": " + entry.value : ""; font: cc.smallFont; opacity: 0.85 }
                }
            }
        }
    }

    ChartView {
        id: view
        objectName: "chartView"
        anchors { left: parent.left; right: parent.right; top: legendRow.bottom; bottom: parent.bottom; topMargin: 2 }
        legend.visible: false
        antialiasing: true
        animationOptions: ChartView.NoAnimation
        backgroundColor: cc.color
        plotAreaColor: cc.color
        backgroundRoundness: 0
        dropShadowEnabled: false
        localizeNumbers: false
        margins { left: 0; right: 4; top: 4; bottom: 0 }
        opacity: cc.stale ? 0.55 : 1
        // Its range is set by the feed alone (the run's time in view);
        // bound to the window here, every resize put it back to [0, window].
        ValueAxis {
            id: axisX
            tickType: ValueAxis.TicksDynamic
            tickAnchor: 0
            // Every 10 s (30 or 60 for long windows), labelled in run time.
            tickInterval: cc.window <= 70 ? 10 : cc.window <= 200 ? 30 : 60
            labelFormat: "%.0fs"
            labelsFont: cc.smallFont
            labelsColor: cpal.windowText
            gridLineColor: cc.gridColor
            color: cc.gridColor
            minorGridVisible: false
        }
        ValueAxis {
            id: axisY
            min: 0
            max: 1
            labelFormat: "%g"
            labelsFont: cc.smallFont
            labelsColor: cpal.windowText
            gridLineColor: cc.gridColor
            color: cc.gridColor
            minorGridVisible: false
        }
    }

    // Tunable changes and member events: a dashed line and a short label
    // near the top of the plot, on the row the feed chose.
    Item {
        id: markLayer
        x: view.x + view.plotArea.x
        y: view.y + view.plotArea.y
        width: view.plotArea.width
        height: view.plotArea.height
        clip: true
        // Every mark's dashed line drawn by one item: an item per dash made
        // thousands of nodes the software renderer visited every frame.
        Canvas {
            id: markLines
            anchors.fill: parent
            onPaint: {
                const ctx = getContext("2d")
                ctx.reset()
                ctx.strokeStyle = Theme.markColor
                ctx.lineWidth = 1
                ctx.setLineDash([4, 3])
                ctx.beginPath()
                for (let i = 0; i < cc.markEntries.length; ++i) {
                    const x = Math.floor(cc.markEntries[i].x) + 0.5
                    ctx.moveTo(x, 0)
                    ctx.lineTo(x, height)
                }
                ctx.stroke()
            }
            Connections {
                target: cc
                function onMarkEntriesChanged() { markLines.requestPaint() }
            }
            onHeightChanged: requestPaint()
        }
        Repeater {
            model: cc.markEntries.length
            Item {
                readonly property var mark: cc.markEntries[index] || ({ x: 0, label: "", row: -1, labelX: 3, width: 60 })
                x: mark.x
                height: markLayer.height
                Label {
                    objectName: "markLabel"
                    visible: mark.row >= 0
                    // Right of the line, or left of it near the plot's right edge (the feed decides).
                    x: mark.labelX
                    y: 1 + mark.row * (metrics.height + 1)
                    width: Math.min(implicitWidth, mark.width)
                    text: mark.label
                    elide: Text.ElideRight
                    font: cc.smallFont
                    color: Theme.markColor
                }
            }
        }
    }

    // What an empty plot means once samples arrive: the metric had nothing
    // to show (no reads give no read share, no completions no latency),
    // where the other cards draw their zero lines. "Waiting for data…"
    // only until the first sample.
    property string emptyText: qsTr("Nothing to show in this window")
    Label {
        objectName: "emptyLabel"
        anchors.centerIn: view
        visible: !feed.hasData
        text: feed.model && feed.model.hasData ? cc.emptyText : qsTr("Waiting for data…")
        opacity: 0.6
    }
}
