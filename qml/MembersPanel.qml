// The members: colour, name, emulated disk, state, read share now (bar),
// pending depth and bandwidth, from the telemetry model's latest sample
// (share, pending and bandwidth over the same last half second).
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Card {
    id: panel
    property var members: []
    property var profiles: []      // device profile per member ("none": the real device)
    title: qsTr("Members")
    // Card's own implicit height: title, share bar and rows with its margins
    // (a fixed 70 px for the rest left the last row on the bottom edge).

    ColumnLayout {
        anchors { left: parent.left; right: parent.right; top: parent.top }
        spacing: 8
        ShareBar {
            objectName: "shareBar"
            Layout.fillWidth: true
            shares: panel.members.map(m => m.share)
            names: panel.members.map(m => m.name)
        }
        GridLayout {
            id: grid
            Layout.fillWidth: true
            columns: 6
            columnSpacing: 14
            rowSpacing: Theme.memberRowSpacing
            Repeater {
                model: ["", qsTr("Member"), qsTr("Emulates"), qsTr("State"), qsTr("Read share"), qsTr("Pending · bandwidth")]
                Label { text: modelData; opacity: 0.7; font.pointSize: Qt.application.font.pointSize * 0.9 }
            }
            Repeater {
                model: panel.members.length * 6
                delegate: Loader {
                    readonly property int row: Math.floor(index / 6)
                    readonly property int col: index % 6
                    readonly property var m: panel.members[row]
                    Layout.fillWidth: col === 1
                    // The row's height (the name centred in it): as the
                    // Tune page's per-member editors, one member a row.
                    Layout.preferredHeight: col === 1 ? Theme.memberRowHeight : -1
                    sourceComponent: [swatch, nameLabel, profileLabel, stateBadge, shareLabel, pendingLabel][col]
                }
            }
        }
    }
    Component { id: swatch; Rectangle { width: 12; height: 12; radius: 3; color: Theme.memberColor(row) } }
    Component { id: nameLabel; Label { objectName: "memberName_" + row; text: m.name; elide: Text.ElideMiddle; verticalAlignment: Text.AlignVCenter; ToolTip.visible: nh.hovered; ToolTip.text: m.path; HoverHandler { id: nh } } }
    Component { id: profileLabel; Label { text: panel.profiles[row] || "none"; opacity: 0.85 } }
    Component {
        id: stateBadge
        Rectangle {
            implicitWidth: sl.implicitWidth + 14; implicitHeight: sl.implicitHeight + 4; radius: height / 2
            color: Qt.rgba(0, 0, 0, 0)
            border.color: Theme.stateColor(m.state)
            Label { id: sl; anchors.centerIn: parent; text: m.state; color: Theme.stateColor(m.state) }
        }
    }
    Component { id: shareLabel; Label { text: m.share.toFixed(1) + " %" } }
    Component {
        id: pendingLabel
        Label { text: m.avgPending.toFixed(1) + " · " + Theme.bandwidth(m.bandwidth) }
    }
}
