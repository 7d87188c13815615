// Benchmarks: KDiskMark's presets, a before/after runner (what changes: the
// read policy, any tunable, a member's emulated disk), a fio job file
// editor, and the seed scenarios on the simulator. Runs show live on the
// dashboard; results are kept as fio JSON in the results folder.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import RaidScope

ScrollView {
    id: page
    property LiveSession session
    property alias controller: bench
    contentWidth: availableWidth
    clip: true
    // A scroll bar always shown when the page is longer than the window (as
    // Breeze does; Fusion's shows only while scrolling, so nothing said
    // there was more below), with the content narrowed to clear it.
    // Decided after the layout pass, not inside it: the bar narrows the
    // content, and a layout resized from within its own pass crashed
    // (Qt 6.4's GridLayout).
    property bool overflowing: false
    function updateOverflow() { overflowing = contentHeight > height }
    onContentHeightChanged: Qt.callLater(updateOverflow)
    onHeightChanged: Qt.callLater(updateOverflow)
    ScrollBar.vertical.policy: overflowing ? ScrollBar.AlwaysOn : ScrollBar.AlwaysOff
    readonly property real barRoom: ScrollBar.vertical.visible ? ScrollBar.vertical.width + 2 : 0
    SystemPalette { id: pal }

    BenchmarkController { id: bench; session: page.session }

    // What the before/after may change: every settable value, by address.
    readonly property var changeTargets: session && session.tunables.count > 0 ? session.tunables.addresses() : []
    readonly property var currentTarget: changeTargets[changeBox.currentIndex] || null

    ColumnLayout {
        width: page.availableWidth - page.barRoom
        spacing: Theme.spacing

        Card {
            Layout.fillWidth: true
            title: qsTr("Before / after")
            subtitle: qsTr("the same preset twice, with one setting changed")
            ColumnLayout {
                anchors { left: parent.left; right: parent.right; top: parent.top }
                spacing: 8
                // What to run, in label-and-control groups that wrap to a
                // second line in a narrow window (a half-screen one clipped
                // the seconds box off the card's edge).
                Flow {
                    Layout.fillWidth: true
                    spacing: 8
                    Row {
                        spacing: 8
                        Label { text: qsTr("Preset"); height: presetBox.height; verticalAlignment: Text.AlignVCenter }
                        ComboBox {
                            id: presetBox
                            objectName: "presetBox"
                            model: bench.presets.map(p => p.label)
                            ToolTip.visible: hovered; ToolTip.text: qsTr("KDiskMark's presets (reads only: the array may hold data)"); ToolTip.delay: 600
                        }
                    }
                    Row {
                        spacing: 8
                        Label { text: qsTr("Change"); height: changeBox.height; verticalAlignment: Text.AlignVCenter }
                        ComboBox {
                            id: changeBox
                            objectName: "changeBox"
                            model: page.changeTargets.map(t => t.address)
                            implicitContentWidthPolicy: ComboBox.WidestText
                            ToolTip.visible: hovered; ToolTip.text: qsTr("The setting that differs between the two runs"); ToolTip.delay: 600
                        }
                    }
                    Row {
                        spacing: 8
                        Label { text: qsTr("from"); height: changeBox.height; verticalAlignment: Text.AlignVCenter }
                        ComboBox {
                            id: beforeBox
                            objectName: "beforeBox"
                            visible: page.currentTarget && page.currentTarget.type === "choice"
                            model: page.currentTarget ? page.currentTarget.choices : []
                            implicitContentWidthPolicy: ComboBox.WidestText
                        }
                        TextField {
                            id: beforeField
                            objectName: "beforeField"
                            visible: !beforeBox.visible
                            placeholderText: qsTr("value")
                            width: 110
                            height: changeBox.height
                        }
                        Label { text: qsTr("to"); height: changeBox.height; verticalAlignment: Text.AlignVCenter }
                        ComboBox {
                            id: afterBox
                            objectName: "afterBox"
                            visible: beforeBox.visible
                            model: beforeBox.model
                            // "to" starts on the second value (md-rr after
                            // md-legacy): set once the box has taken its new
                            // model (it goes back to the first on a new one).
                            onModelChanged: Qt.callLater(() => { if (count > 1) currentIndex = 1 })
                            implicitContentWidthPolicy: ComboBox.WidestText
                        }
                        TextField {
                            id: afterField
                            objectName: "afterField"
                            visible: !afterBox.visible
                            placeholderText: qsTr("value")
                            width: 110
                            height: changeBox.height
                        }
                    }
                    Row {
                        spacing: 8
                        Label { text: qsTr("for"); height: secondsBox.height; verticalAlignment: Text.AlignVCenter }
                        SpinBox {
                            id: secondsBox
                            objectName: "secondsBox"
                            from: 1; to: 600; value: 5; editable: true
                            ToolTip.visible: hovered; ToolTip.text: qsTr("Seconds per run"); ToolTip.delay: 600
                        }
                        Label { text: qsTr("s"); height: secondsBox.height; verticalAlignment: Text.AlignVCenter }
                    }
                }
                RowLayout {
                    spacing: 8
                    Button {
                        objectName: "runBeforeAfterButton"
                        text: qsTr("Run before/after")
                        highlighted: true
                        enabled: !bench.running && page.currentTarget !== null
                        onClicked: bench.runBeforeAfter(bench.presets[presetBox.currentIndex].key, page.currentTarget.address,
                                                        beforeBox.visible ? beforeBox.currentText : beforeField.text,
                                                        afterBox.visible ? afterBox.currentText : afterField.text,
                                                        secondsBox.value)
                        ToolTip.visible: hovered; ToolTip.text: qsTr("Stops the live workload, runs the preset with each value"); ToolTip.delay: 600
                    }
                    Button {
                        objectName: "runPresetButton"
                        text: qsTr("Run preset once")
                        enabled: !bench.running
                        onClicked: bench.runPreset(bench.presets[presetBox.currentIndex].key, secondsBox.value)
                    }
                    Button {
                        objectName: "cancelBenchButton"
                        text: qsTr("Cancel")
                        enabled: bench.running
                        onClicked: bench.cancel()
                    }
                    ProgressBar {
                        objectName: "benchProgress"
                        Layout.fillWidth: true
                        visible: bench.running
                        value: Math.max(0, bench.progress)
                        indeterminate: bench.progress < 0
                    }
                    Label {
                        objectName: "benchPhase"
                        text: bench.phaseText
                        elide: Text.ElideRight
                        Layout.fillWidth: !bench.running
                    }
                }
                Label {
                    objectName: "benchError"
                    visible: bench.errorString.length > 0
                    text: bench.errorString
                    color: Theme.negative
                    wrapMode: Text.Wrap
                    Layout.fillWidth: true
                }
            }
        }

        Card {
            id: cmp
            objectName: "comparisonCard"
            Layout.fillWidth: true
            visible: bench.comparison.ratio !== undefined
            readonly property var a: bench.comparison.before || ({})
            readonly property var b: bench.comparison.after || ({})
            title: qsTr("Result: %1").arg(bench.comparison.change || "")
            implicitHeight: cmpCol.implicitHeight + 50
            headerExtras: Label {
                objectName: "ratioLabel"
                text: qsTr("after / before: %1×").arg((bench.comparison.ratio || 0).toFixed(2))
                font.bold: true
                font.pixelSize: 16
                color: (bench.comparison.ratio || 0) >= 1 ? Theme.positive : Theme.negative
            }
            ColumnLayout {
                id: cmpCol
                anchors { left: parent.left; right: parent.right; top: parent.top }
                spacing: 10
                ResultBars {
                    Layout.fillWidth: true
                    label: qsTr("Bandwidth")
                    beforeName: cmp.a.label || ""; afterName: cmp.b.label || ""
                    before: cmp.a.bandwidth || 0; after: cmp.b.bandwidth || 0
                    beforeText: Theme.bandwidth(cmp.a.bandwidth); afterText: Theme.bandwidth(cmp.b.bandwidth)
                }
                ResultBars {
                    Layout.fillWidth: true
                    label: qsTr("IOPS")
                    beforeName: cmp.a.label || ""; afterName: cmp.b.label || ""
                    before: cmp.a.iops || 0; after: cmp.b.iops || 0
                    beforeText: Theme.count(cmp.a.iops); afterText: Theme.count(cmp.b.iops)
                }
                GridLayout {
                    columns: 5
                    columnSpacing: 18
                    Label { text: "" }
                    Label { text: qsTr("read shares"); opacity: 0.7 }
                    Label { text: "p50"; opacity: 0.7 }
                    Label { text: "p95"; opacity: 0.7 }
                    Label { text: "p99"; opacity: 0.7 }
                    Label { text: cmp.a.label || "" }
                    ShareBar { Layout.preferredWidth: 260; shares: cmp.a.shares || [] }
                    Label { text: Theme.ms(cmp.a.p50Ms) }
                    Label { text: Theme.ms(cmp.a.p95Ms) }
                    Label { text: Theme.ms(cmp.a.p99Ms) }
                    Label { text: cmp.b.label || "" }
                    ShareBar { Layout.preferredWidth: 260; shares: cmp.b.shares || [] }
                    Label { text: Theme.ms(cmp.b.p50Ms) }
                    Label { text: Theme.ms(cmp.b.p95Ms) }
                    Label { text: Theme.ms(cmp.b.p99Ms) }
                }
                // Export: the two runs as one report (HTML, PDF, JSON or CSV by
                // the name's suffix), written by the report code the CLI's
                // `report` command uses.
                RowLayout {
                    Layout.fillWidth: true
                    spacing: 8
                    Label { text: qsTr("Report") }
                    TextField {
                        id: exportPath
                        objectName: "exportPathField"
                        Layout.fillWidth: true
                        selectByMouse: true
                        text: bench.resultsDir + "/before-after.html"
                        placeholderText: qsTr("file to write: .html, .pdf, .json or .csv")
                        onAccepted: exportButton.clicked()
                        ToolTip.visible: hovered; ToolTip.text: qsTr("Where the report goes; its suffix picks the format"); ToolTip.delay: 600
                    }
                    Button {
                        objectName: "exportBrowseButton"
                        text: qsTr("Choose…")
                        icon.name: "document-save-as"
                        onClicked: {
                            const chosen = bench.chooseExportFile(exportPath.text)
                            if (chosen.length > 0) {
                                exportPath.text = chosen
                                bench.exportReport(chosen)
                            }
                        }
                        ToolTip.visible: hovered; ToolTip.text: qsTr("Pick the file in a dialog"); ToolTip.delay: 600
                    }
                    Button {
                        id: exportButton
                        objectName: "exportButton"
                        text: qsTr("Export")
                        icon.name: "document-export"
                        enabled: bench.canExport && !bench.running
                        onClicked: bench.exportReport(exportPath.text)
                        ToolTip.visible: hovered; ToolTip.text: qsTr("Write both runs and their ratios as a report"); ToolTip.delay: 600
                    }
                }
                Label {
                    objectName: "exportMessage"
                    visible: bench.exportMessage.length > 0
                    text: bench.exportMessage
                    color: bench.exportOk ? Theme.positive : Theme.negative
                    wrapMode: Text.Wrap
                    Layout.fillWidth: true
                }
            }
        }

        Card {
            Layout.fillWidth: true
            title: qsTr("fio job file")
            subtitle: qsTr("runs on the array; filename= is ignored")
            implicitHeight: 260
            ColumnLayout {
                anchors.fill: parent
                spacing: 6
                ScrollView {
                    Layout.fillWidth: true
                    Layout.fillHeight: true
                    TextArea {
                        id: jobText
                        objectName: "jobFileEditor"
                        font.family: "monospace"
                        text: "[global]\nioengine=io_uring\nrw=randread\nbs=4k\niodepth=16\ndirect=1\ntime_based\nruntime=5\n\n[random-read]\n"
                        onTextChanged: jobCheck.result = bench.checkJobFile(text)
                        background: Rectangle { color: pal.base; border.color: pal.mid; radius: 3 }
                    }
                }
                RowLayout {
                    Label {
                        id: jobCheck
                        objectName: "jobFileStatus"
                        property var result: bench.checkJobFile(jobText.text)
                        Layout.fillWidth: true
                        wrapMode: Text.Wrap
                        text: result.ok ? qsTr("%n job(s), no errors", "", result.jobs)
                                        : (result.line > 0 ? qsTr("Line %1: ").arg(result.line) : "") + result.message
                        color: result.ok ? pal.windowText : Theme.negative
                    }
                    Button {
                        objectName: "runJobFileButton"
                        text: qsTr("Run job file")
                        enabled: jobCheck.result.ok && !bench.running
                        onClicked: bench.runJobFile(jobText.text, 5)
                    }
                }
            }
        }

        Card {
            Layout.fillWidth: true
            title: qsTr("Published benchmarks")
            subtitle: qsTr("before/after figures published with kernel changes, replayed on the simulator (no disk I/O)")
            implicitHeight: scCol.implicitHeight + 50
            ColumnLayout {
                id: scCol
                anchors { left: parent.left; right: parent.right; top: parent.top }
                RowLayout {
                    ComboBox {
                        id: scenarioBox
                        objectName: "scenarioBox"
                        model: bench.scenarios.map(s => s.name)
                        implicitContentWidthPolicy: ComboBox.WidestText
                        ToolTip.visible: hovered && bench.scenarios.length > 0
                        ToolTip.text: bench.scenarios[currentIndex] ? bench.scenarios[currentIndex].description : ""
                        ToolTip.delay: 600
                    }
                    Button {
                        objectName: "runScenarioButton"
                        text: qsTr("Simulate")
                        enabled: !bench.running && scenarioBox.count > 0
                        onClicked: bench.runScenario(scenarioBox.currentText)
                    }
                }
                Repeater {
                    model: bench.scenarioRows.length
                    RowLayout {
                        readonly property var modelData: bench.scenarioRows[index]
                        spacing: 12
                        Label { text: modelData.label; Layout.preferredWidth: 260; elide: Text.ElideRight }
                        Label { text: modelData.before + " " + Theme.bandwidth(modelData.bwBefore) }
                        Label { text: "→ " + modelData.after + " " + Theme.bandwidth(modelData.bwAfter) }
                        Label { text: modelData.ratio.toFixed(2) + "×"; font.bold: true }
                        Label { text: modelData.within ? qsTr("matches the published figures") : qsTr("differs from the published figures")
                                color: modelData.within ? Theme.positive : Theme.neutral }
                    }
                }
            }
        }

        Card {
            Layout.fillWidth: true
            title: qsTr("Results")
            subtitle: qsTr("kept as fio JSON in %1").arg(bench.resultsDir)
            implicitHeight: resCol.implicitHeight + 50
            ColumnLayout {
                id: resCol
                anchors { left: parent.left; right: parent.right; top: parent.top }
                Label {
                    objectName: "resultsEmpty"
                    visible: bench.results.length === 0
                    text: bench.running ? qsTr("The result appears here when the run ends.") : qsTr("No run yet.")
                    opacity: 0.6
                }
                Repeater {
                    model: bench.results.length
                    RowLayout {
                        readonly property var modelData: bench.results[index]
                        spacing: 14
                        Label { text: modelData.when; opacity: 0.7 }
                        Label { text: modelData.title; Layout.fillWidth: true; elide: Text.ElideRight }
                        // Figures in columns of their own width, right-aligned, so
                        // rows line up whatever their digits.
                        Label { text: Theme.bandwidth(modelData.bandwidth); horizontalAlignment: Text.AlignRight; Layout.preferredWidth: 90 }
                        Label { text: Theme.count(modelData.iops) + " IOPS"; horizontalAlignment: Text.AlignRight; Layout.preferredWidth: 90 }
                        Label { text: "p99 " + Theme.ms(modelData.p99Ms); horizontalAlignment: Text.AlignRight; Layout.preferredWidth: 100 }
                    }
                }
            }
        }
    }
}
