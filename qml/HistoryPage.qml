// History: every run kept in the results folder, listed at start (a
// restart loses nothing), newest first. Pick one to see its figures again,
// two to compare them (medians, spread, p99), and export the picked runs
// as one report under a name no file has.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import RaidScope

ScrollView {
    id: page
    property alias history: history
    contentWidth: availableWidth
    clip: true
    SystemPalette { id: pal }
    HistoryModel { id: history; Component.onCompleted: refresh() }
    readonly property var cmp: history.comparison
    readonly property var picked: history.runs.filter(r => r.selected)
    function distinctParts(a, b) {
        let i = 0
        while (i < a.length && i < b.length && a[i] === b[i]) ++i
        const cut = a.lastIndexOf(" ", i) + 1  // at a word
        return cut > 0 && cut < a.length && cut < b.length ? [a.slice(cut), b.slice(cut)] : [a, b]
    }

    ColumnLayout {
        width: page.availableWidth
        spacing: Theme.spacing
        Card {
            objectName: "historyCard"
            Layout.fillWidth: true
            title: qsTr("Runs")
            subtitle: history.loading ? qsTr("reading %1…").arg(history.resultsDir) : qsTr("kept in %1; pick two to compare").arg(history.resultsDir)
            implicitHeight: runsCol.implicitHeight + 56
            headerExtras: Button { text: qsTr("Reload"); onClicked: history.refresh() }
            ColumnLayout {
                id: runsCol
                anchors { left: parent.left; right: parent.right; top: parent.top }
                spacing: 2
                Label {
                    objectName: "historyEmpty"
                    visible: history.runs.length === 0 && !history.loading
                    text: qsTr("No run kept yet: runs from the Benchmark page (and raidscope-cli bench --save) appear here.")
                    opacity: 0.6
                }
                Repeater {
                    model: history.runs
                    RowLayout {
                        objectName: "historyRow_" + index
                        Layout.fillWidth: true
                        spacing: 14
                        Check {
                            objectName: "historyPick"
                            checked: modelData.selected
                            onClicked: history.toggle(modelData.file)
                        }
                        Label { text: modelData.when; opacity: 0.7; Layout.preferredWidth: 150; elide: Text.ElideRight }
                        Label { text: modelData.title; Layout.fillWidth: true; elide: Text.ElideMiddle
                                ToolTip.visible: th.hovered; ToolTip.text: modelData.name; HoverHandler { id: th } }
                        Label { text: modelData.array; opacity: 0.8 }
                        Label { text: Theme.bandwidth(modelData.bandwidth); horizontalAlignment: Text.AlignRight; Layout.preferredWidth: 90 }
                        Label { text: Theme.count(modelData.iops) + " IOPS"; horizontalAlignment: Text.AlignRight; Layout.preferredWidth: 90 }
                        Label { text: "p99 " + Theme.ms(modelData.p99Ms); horizontalAlignment: Text.AlignRight; Layout.preferredWidth: 100 }
                    }
                }
            }
        }
        Card {
            objectName: "historyCompare"
            Layout.fillWidth: true
            visible: page.picked.length > 0
            title: page.cmp.ratio !== undefined ? qsTr("Compared") : qsTr("Picked")
            // Older first, as compared.
            subtitle: page.cmp.before ? page.cmp.before.label + "  →  " + page.cmp.after.label
                                      : page.picked.map(r => r.title).join(", ")
            implicitHeight: cmpCol.implicitHeight + 56
            ColumnLayout {
                id: cmpCol
                anchors { left: parent.left; right: parent.right; top: parent.top }
                spacing: 8
                Label {
                    objectName: "historyVerdict"
                    visible: page.cmp.verdict !== undefined
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    text: page.cmp.verdict || ""
                }
                Label {
                    visible: page.cmp.p99Worse === true
                    font.bold: true
                    color: Theme.negative
                    text: qsTr("The 99th percentile latency got worse: ×%1").arg((page.cmp.p99Ratio || 0).toFixed(2))
                }
                ResultBars {
                    visible: page.cmp.ratio !== undefined
                    Layout.fillWidth: true
                    label: qsTr("Bandwidth")
                    // What differs between the two titles (their common start dropped).
                    readonly property var names: page.distinctParts(page.cmp.before ? page.cmp.before.label : "",
                                                                    page.cmp.after ? page.cmp.after.label : "")
                    beforeName: names[0]; afterName: names[1]
                    before: page.cmp.before ? page.cmp.before.bandwidth : 0; after: page.cmp.after ? page.cmp.after.bandwidth : 0
                    beforeText: Theme.bandwidth(before); afterText: Theme.bandwidth(after)
                }
                RowLayout {
                    Layout.fillWidth: true
                    spacing: 8
                    Label { text: qsTr("Report") }
                    Field {
                        id: exportPath
                        objectName: "historyExportPath"
                        Layout.fillWidth: true
                        text: history.suggestedReport()
                        // After an export, the file it wrote (the message below names it):
                        // a name taken by another file is written under the next free one.
                        Connections {
                            target: history
                            function onSelectionChanged() { exportPath.text = history.suggestedReport() }
                            function onExportedChanged() { if (history.lastReport.length > 0) exportPath.text = history.lastReport }
                        }
                    }
                    Button {
                        objectName: "historyExportButton"
                        text: qsTr("Export")
                        onClicked: history.exportReport(exportPath.text)
                    }
                }
                Label {
                    objectName: "historyExportMessage"
                    visible: history.exportMessage.length > 0
                    text: history.exportMessage
                    color: history.exportOk ? Theme.positive : Theme.negative
                    wrapMode: Text.Wrap
                    Layout.fillWidth: true
                }
            }
        }
    }
}
